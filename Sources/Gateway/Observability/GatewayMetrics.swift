import Backends
import Cache
import CoreMetrics
import Foundation
import Prometheus

/// The gateway's Prometheus registry, one per runtime (so tests that run several gateways in
/// one process keep their numbers apart). Counters and histograms are written where things
/// happen (requests, upstream calls, cache lookups) through swift-metrics with `factory`;
/// gauges that describe state (cache size, circuits) are set when /metrics is scraped.
public final class GatewayMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let factory: PrometheusMetricsFactory
    /// `daygate_http_requests_total` and `daygate_http_request_duration_seconds`, per series.
    let requests: RequestMetricHandles

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        self.requests = RequestMetricHandles(factory: factory)
    }

    /// The Prometheus text exposition, with the state gauges brought up to date first.
    public func exposition(cache: CacheStore, monitor: UpstreamMonitor, connections: ConnectionBudget) async -> String {
        cache.foldReusedLookups()
        Gauge(label: "daygate_http_connections", factory: factory).record(connections.open)
        Gauge(label: "daygate_http_connection_limit", factory: factory).record(connections.limit)
        let memory = await cache.memoryStats
        Gauge(label: "daygate_cache_entries", dimensions: [("tier", "memory")], factory: factory).record(memory.entries)
        Gauge(label: "daygate_cache_bytes", dimensions: [("tier", "memory")], factory: factory).record(memory.bytes)
        if let stored = try? cache.database.stats() {
            Gauge(label: "daygate_cache_entries", dimensions: [("tier", "sqlite")], factory: factory).record(
                stored.entries)
            Gauge(label: "daygate_cache_bytes", dimensions: [("tier", "sqlite")], factory: factory).record(stored.bytes)
        }
        for status in monitor.allStatuses() {
            let value =
                switch status.circuit {
                case .closed: 0
                case .halfOpen: 1
                case .open: 2
                }
            Gauge(
                label: "daygate_upstream_circuit_state",
                dimensions: [
                    ("profile", status.source.profile), ("backend", status.source.backend),
                    ("scope", status.source.scope ?? ""),
                ],
                factory: factory
            ).record(value)
        }
        return registry.emitToString()
    }
}
