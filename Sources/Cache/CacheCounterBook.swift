import CoreMetrics
import Synchronization

/// What the cache did, per profile and operation, for /v1/sources, and as Prometheus counters
/// per operation. Thread-safe, so an answer served without asking the cache actor (a reused
/// composed answer) still counts its lookups — through a `ReusedLookups` handle, which counts
/// a use with one atomic addition; the book adds the uses to the counters of each lookup
/// whenever counts are read (`fold`), and when the handle goes.
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

        func count(_ event: CacheCounters.Event, times: Int = 1) {
            switch event {
            case .hits: hits.add(times, ordering: .relaxed)
            case .misses: misses.add(times, ordering: .relaxed)
            case .staleServes: staleServes.add(times, ordering: .relaxed)
            case .collapsed: collapsed.add(times, ordering: .relaxed)
            case .fetches: fetches.add(times, ordering: .relaxed)
            case .fetchFailures: fetchFailures.add(times, ordering: .relaxed)
            case .timeouts: timeouts.add(times, ordering: .relaxed)
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

    private struct Weak: @unchecked Sendable {
        weak var handle: ReusedLookups?
    }

    /// The `ReusedLookups` handles alive, whose uses `fold` adds up.
    private let reused = Mutex<[ObjectIdentifier: Weak]>([:])

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
        let handle = ReusedLookups(
            book: self,
            handles: lookups.map { lookup in
                let (tally, counter) = handles(profile: profile, operation: lookup.operation, lookup.event)
                return (tally, counter, lookup.event)
            })
        reused.withLock { $0[ObjectIdentifier(handle)] = Weak(handle: handle) }
        return handle
    }

    /// Adds the uses of every live `ReusedLookups` to the counts: before counts are read.
    func fold() {
        let live = reused.withLock { reused in reused.values.compactMap(\.handle) }
        for handle in live { handle.fold() }
    }

    fileprivate func forget(_ handle: ObjectIdentifier) {
        _ = reused.withLock { $0.removeValue(forKey: handle) }
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
        fold()
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
/// use. A use is one atomic addition (a kept answer is given tens of thousands of times a
/// second under load, and each section's counters are shared by every thread); the uses reach
/// the section's counters when counts are read, or when the handle goes.
public final class ReusedLookups: Sendable {
    private let handles: [(CacheCounterBook.Tally, Counter, CacheCounters.Event)]
    private let uses = Atomic<Int>(0)
    private let book: CacheCounterBook

    fileprivate init(book: CacheCounterBook, handles: [(CacheCounterBook.Tally, Counter, CacheCounters.Event)]) {
        self.book = book
        self.handles = handles
    }

    deinit {
        fold()
        book.forget(ObjectIdentifier(self))
    }

    public func count() {
        uses.add(1, ordering: .relaxed)
    }

    fileprivate func fold() {
        let times = uses.exchange(0, ordering: .relaxed)
        guard times > 0 else { return }
        for (tally, counter, event) in handles {
            tally.count(event, times: times)
            counter.increment(by: Int64(times))
        }
    }
}
