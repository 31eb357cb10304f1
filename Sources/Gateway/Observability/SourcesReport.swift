import Backends
import Cache
import Foundation
import Model

/// `/v1/sources`: for one profile, each backend (and each Kantine Koning enrollment) —
/// configured or not, last success, last error, circuit, `Retry-After`, upstream call and
/// error counts, and what the cache did for it. Built from `UpstreamMonitor` and
/// `CacheStore` counters; it holds names, times and counts, never a credential.
struct SourcesReport: Encodable {
    struct LastError: Encodable {
        var code: String
        var message: String
        var at: String
    }

    struct Health: Encodable {
        @Nullable var lastSuccess: String?
        @Nullable var lastError: LastError?
        var circuit: CircuitBreaker.Phase
        @Nullable var circuitOpenUntil: String?
        @Nullable var retryAfterUntil: String?
        var calls: Int
        var errors: Int

        enum CodingKeys: String, CodingKey {
            case lastSuccess = "last_success"
            case lastError = "last_error"
            case circuit
            case circuitOpenUntil = "circuit_open_until"
            case retryAfterUntil = "retry_after_until"
            case calls, errors
        }
    }

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

    struct Enrollment: Encodable {
        var label: String
        var tenant: String
        var role: String
        var seasonEnded: Bool
        var health: Health

        enum CodingKeys: String, CodingKey {
            case label, tenant, role
            case seasonEnded = "season_ended"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try container.encode(tenant, forKey: .tenant)
            try container.encode(role, forKey: .role)
            try container.encode(seasonEnded, forKey: .seasonEnded)
            try health.encode(to: encoder)
        }
    }

    struct Source: Encodable {
        var configured: Bool
        var health: Health
        var cache: CacheFigures
        var enrollments: [Enrollment]?

        enum CodingKeys: String, CodingKey { case configured, cache, enrollments }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(configured, forKey: .configured)
            try container.encode(cache, forKey: .cache)
            try container.encodeIfPresent(enrollments, forKey: .enrollments)
            try health.encode(to: encoder)
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
        func time(_ date: Date?) -> String? { date.map { LenientDate.format($0, in: zone) } }
        func health(_ backend: String, scope: String?) -> Health {
            let matching = statuses.filter { $0.source.backend == backend && $0.source.scope == scope }
            let status =
                matching.first
                ?? UpstreamMonitor.Status(source: UpstreamSource(profile: name, backend: backend, scope: scope))
            return Health(
                lastSuccess: time(status.lastSuccess),
                lastError: status.lastError.map {
                    LastError(code: $0.code, message: $0.message, at: LenientDate.format($0.at, in: zone))
                },
                circuit: status.circuit, circuitOpenUntil: time(status.circuitOpenUntil),
                retryAfterUntil: time(status.retryAfterUntil), calls: status.calls, errors: status.errors
            )
        }

        var sources: [String: Source] = [:]
        for backend in BackendCatalog.names {
            var counters = CacheCounters()
            for operation in runtime.registry.operations.values where operation.backend == backend {
                counters.add(runtime.cache.counters(profile: name, operation: operation.name))
            }
            var source = Source(
                configured: profile.configures(backend), health: health(backend, scope: nil),
                cache: CacheFigures(counters)
            )
            if backend == KantineKoningClient.backend {
                var enrollments: [Enrollment] = []
                for enrollment in profile.kantinekoning?.enrollments ?? [] {
                    let seasonEnded =
                        await runtime.vault.value(
                            profile: name, backend: backend, name: "season_ended:\(enrollment.tenant)") != nil
                    enrollments.append(
                        Enrollment(
                            label: enrollment.label, tenant: enrollment.tenant, role: enrollment.role,
                            seasonEnded: seasonEnded,
                            health: health(backend, scope: enrollment.label)
                        ))
                }
                source.enrollments = enrollments
                // The backend's own line sums its enrollments' calls.
                let scoped = statuses.filter { $0.source.backend == backend }
                source.health.calls = scoped.reduce(0) { $0 + $1.calls }
                source.health.errors = scoped.reduce(0) { $0 + $1.errors }
                source.health.lastSuccess = time(scoped.compactMap(\.lastSuccess).max())
                if let last = scoped.compactMap(\.lastError).max(by: { $0.at < $1.at }) {
                    source.health.lastError = LastError(
                        code: last.code, message: last.message, at: LenientDate.format(last.at, in: zone))
                }
            }
            sources[backend] = source
        }
        return SourcesReport(
            profile: name, generatedAt: LenientDate.format(now, in: zone), sources: sources,
            storage: StorageReport(runtime.database.storageHealth, zone: zone)
        )
    }
}
