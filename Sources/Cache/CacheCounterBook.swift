import CoreMetrics
import Synchronization

/// What the cache did, per profile and operation, for /v1/sources, and as Prometheus counters
/// per operation. Thread-safe, so an answer served without asking the cache actor (a reused
/// composed answer) still counts its hits.
final class CacheCounterBook: Sendable {
    private struct Scope: Hashable {
        var profile: String
        var operation: String
    }

    private struct MetricName: Hashable {
        var event: CacheCounters.Event
        var operation: String
    }

    private struct State {
        var counters: [Scope: CacheCounters] = [:]
        var metrics: [MetricName: Counter] = [:]
    }

    private let state = Mutex(State())
    private let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func count(profile: String, operation: String, _ event: CacheCounters.Event) {
        count(profile: profile, operations: CollectionOfOne(operation), event)
    }

    /// One `event` for each of `operations`, under one lock.
    func count(profile: String, operations: some Collection<String>, _ event: CacheCounters.Event) {
        let counters: [Counter] = state.withLock { state in
            operations.map { operation in
                state.counters[Scope(profile: profile, operation: operation), default: CacheCounters()].count(event)
                let name = MetricName(event: event, operation: operation)
                if let counter = state.metrics[name] { return counter }
                let counter = Counter(label: event.metricName, dimensions: [("operation", operation)], factory: factory)
                state.metrics[name] = counter
                return counter
            }
        }
        for counter in counters { counter.increment() }
    }

    /// Summed over `profile` (all when nil) and `operation` (all when nil).
    func total(profile: String?, operation: String?) -> CacheCounters {
        state.withLock { state in
            var total = CacheCounters()
            for (scope, counters) in state.counters
            where (profile == nil || scope.profile == profile) && (operation == nil || scope.operation == operation) {
                total.add(counters)
            }
            return total
        }
    }
}
