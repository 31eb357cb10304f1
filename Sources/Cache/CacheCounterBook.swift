import CoreMetrics
import Synchronization

/// What the cache did, per profile and operation, for /v1/sources, and as Prometheus counters
/// per operation. Thread-safe, so an answer served without asking the cache actor (a reused
/// composed answer) still counts its lookups — through a `ReusedLookups` handle, which counts
/// them without a lock or a lookup.
final class CacheCounterBook: Sendable {
    private struct Scope: Hashable {
        var profile: String
        var operation: String
    }

    private struct MetricName: Hashable {
        var event: CacheCounters.Event
        var operation: String
    }

    /// The counts of one profile's operation.
    final class Tally: Sendable {
        private let hits = Atomic<Int>(0)
        private let misses = Atomic<Int>(0)
        private let staleServes = Atomic<Int>(0)
        private let collapsed = Atomic<Int>(0)
        private let fetches = Atomic<Int>(0)
        private let fetchFailures = Atomic<Int>(0)
        private let timeouts = Atomic<Int>(0)

        func count(_ event: CacheCounters.Event) {
            switch event {
            case .hits: hits.add(1, ordering: .relaxed)
            case .misses: misses.add(1, ordering: .relaxed)
            case .staleServes: staleServes.add(1, ordering: .relaxed)
            case .collapsed: collapsed.add(1, ordering: .relaxed)
            case .fetches: fetches.add(1, ordering: .relaxed)
            case .fetchFailures: fetchFailures.add(1, ordering: .relaxed)
            case .timeouts: timeouts.add(1, ordering: .relaxed)
            }
        }

        var counters: CacheCounters {
            var counters = CacheCounters()
            counters.hits = hits.load(ordering: .relaxed)
            counters.misses = misses.load(ordering: .relaxed)
            counters.staleServes = staleServes.load(ordering: .relaxed)
            counters.collapsed = collapsed.load(ordering: .relaxed)
            counters.fetches = fetches.load(ordering: .relaxed)
            counters.fetchFailures = fetchFailures.load(ordering: .relaxed)
            counters.timeouts = timeouts.load(ordering: .relaxed)
            return counters
        }
    }

    private struct State {
        var tallies: [Scope: Tally] = [:]
        var metrics: [MetricName: Counter] = [:]
    }

    private let state = Mutex(State())
    private let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func count(profile: String, operation: String, _ event: CacheCounters.Event) {
        let (tally, counter) = handles(profile: profile, operation: operation, event)
        tally.count(event)
        counter.increment()
    }

    /// A handle counting, per use, each lookup's event for its operation of `profile`.
    func reusedLookups(profile: String, _ lookups: [(operation: String, event: CacheCounters.Event)]) -> ReusedLookups {
        ReusedLookups(handles: lookups.map { lookup in
            let (tally, counter) = handles(profile: profile, operation: lookup.operation, lookup.event)
            return (tally, counter, lookup.event)
        })
    }

    private func handles(profile: String, operation: String, _ event: CacheCounters.Event) -> (Tally, Counter) {
        state.withLock { state in
            let scope = Scope(profile: profile, operation: operation)
            let tally = state.tallies[scope] ?? Tally()
            state.tallies[scope] = tally
            let name = MetricName(event: event, operation: operation)
            if let counter = state.metrics[name] { return (tally, counter) }
            let counter = Counter(label: event.metricName, dimensions: [("operation", operation)], factory: factory)
            state.metrics[name] = counter
            return (tally, counter)
        }
    }

    /// Summed over `profile` (all when nil) and `operation` (all when nil).
    func total(profile: String?, operation: String?) -> CacheCounters {
        let tallies = state.withLock { state in
            state.tallies.filter { scope, _ in
                (profile == nil || scope.profile == profile) && (operation == nil || scope.operation == operation)
            }.values
        }
        var total = CacheCounters()
        for tally in tallies { total.add(tally.counters) }
        return total
    }
}

/// Counts what a reused composed answer stands for: per section a hit or a stale serve, each
/// use.
public struct ReusedLookups: Sendable {
    fileprivate let handles: [(CacheCounterBook.Tally, Counter, CacheCounters.Event)]

    public func count() {
        for (tally, counter, event) in handles {
            tally.count(event)
            counter.increment()
        }
    }
}
