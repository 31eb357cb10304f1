import Backends
import Cache
import Foundation
import Model

/// `/v1/sources`: for one profile, each backend — configured or not, last success, last
/// error, circuit, `Retry-After`, upstream call and error counts, what the cache did for it,
/// and what its `SourcesPart` adds (Kantine Koning: each enrollment). Built from `UpstreamMonitor` and
/// `CacheStore` counters; it holds names, times and counts, never a credential.
struct SourcesReport: Encodable {
    struct CacheFigures: Encodable {
        var hits, misses, staleServes, collapsed, fetches, fetchFailures, timeouts: Int

        init(_ counters: CacheCounters) {
            hits = counters.hits
            misses = counters.misses
            staleServes = counters.staleServes
            collapsed = counters.collapsed
            fetches = counters.fetches
            fetchFailures = counters.fetchFailures
            timeouts = counters.timeouts
        }

        enum CodingKeys: String, CodingKey {
            case hits, misses
            case staleServes = "stale_serves"
            case collapsed, fetches
            case fetchFailures = "fetch_failures"
            case timeouts
        }
    }

    struct Source: Encodable {
        var configured: Bool
        var health: SourceHealth
        var cache: CacheFigures
        /// The backend's own keys (its `SourcesPart`).
        var details: [String: JSONValue]

        enum CodingKeys: String, CodingKey { case configured, cache }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(configured, forKey: .configured)
            try container.encode(cache, forKey: .cache)
            try health.encode(to: encoder)
            var extra = encoder.container(keyedBy: DetailKey.self)
            for (key, value) in details { try extra.encode(value, forKey: DetailKey(stringValue: key)) }
        }

        struct DetailKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    var profile: String
    var generatedAt: String
    var sources: [String: Source]
    /// Whether the state folder (cache, vault, idempotency keys) takes writes.
    var storage: StorageReport

    enum CodingKeys: String, CodingKey {
        case profile
        case generatedAt = "generated_at"
        case sources, storage
    }

    static func make(profile name: String, runtime: GatewayRuntime, now: Date = Date()) async -> SourcesReport {
        let zone = runtime.config.timeZone
        let profile = runtime.config.profiles[name] ?? ProfileConfig()
        let statuses = runtime.http.monitor.statuses(profile: name)
        @Sendable func status(_ backend: String, scope: String?) -> UpstreamMonitor.Status {
            statuses.first { $0.source.backend == backend && $0.source.scope == scope }
                ?? UpstreamMonitor.Status(source: UpstreamSource(profile: name, backend: backend, scope: scope))
        }

        var sources: [String: Source] = [:]
        for backend in BackendCatalog.all {
            var counters = CacheCounters()
            for operation in runtime.registry.operations.values where operation.backend == backend.name {
                counters.add(runtime.cache.counters(profile: name, operation: operation.name))
            }
            let scopes = statuses.filter { $0.source.backend == backend.name && $0.source.scope != nil }
            let input = SourcesInput(profileName: name, profile: profile, vault: runtime.vault) { scope in
                SourceHealth(status(backend.name, scope: scope), zone: zone)
            }
            sources[backend.name] = Source(
                configured: profile.configures(backend.name),
                health: SourceHealth(backend: status(backend.name, scope: nil), scopes: scopes, zone: zone),
                cache: CacheFigures(counters), details: await backend.sourcesPart?.details(input) ?? [:])
        }
        return SourcesReport(
            profile: name, generatedAt: LenientDate.format(now, in: zone), sources: sources,
            storage: StorageReport(runtime.database.storageHealth, zone: zone)
        )
    }
}
