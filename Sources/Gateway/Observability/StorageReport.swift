import Cache
import Foundation
import Model

/// Whether the state folder takes writes (`CacheDatabase.storageHealth`), as `/readyz` and
/// `/v1/sources` show it: when it does not, cached answers are served from memory, and writes
/// with an `Idempotency-Key` are refused before anything is sent (503).
struct StorageReport: Encodable {
    struct Failure: Encodable {
        var reason: String
        var at: String
    }

    var writable: Bool
    @Nullable var lastFailure: Failure?
    @Nullable var lastSuccess: String?
    /// Why a temporary folder stands in for the state folder (nothing in it survives a restart).
    @Nullable var temporary: String?

    enum CodingKeys: String, CodingKey {
        case writable
        case lastFailure = "last_failure"
        case lastSuccess = "last_success"
        case temporary
    }

    /// Writes land where they should.
    var healthy: Bool { writable && temporary == nil }

    init(_ health: StorageHealth, zone: TimeZone) {
        writable = health.writable
        temporary = health.temporary
        lastFailure = health.lastFailure.map { Failure(reason: $0.reason, at: LenientDate.format($0.at, in: zone)) }
        lastSuccess = health.lastSuccess.map { LenientDate.format($0, in: zone) }
    }
}
