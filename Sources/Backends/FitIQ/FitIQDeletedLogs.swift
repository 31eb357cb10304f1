import Foundation
import Model

/// The food logs this gateway deleted, or may have deleted, per account: so that a DELETE sent
/// again — by a client whose first one timed out or lost its answer, without an
/// `Idempotency-Key` — is answered 204 for the log that is gone, not 404 `not_found` as if it
/// had never existed.
///
/// FitIQ answers 404 for a log that was already deleted, the same as for one that never was.
/// An id is remembered when FitIQ confirmed the delete (204) and when the delete may have
/// happened without an answer (a timeout, a 5xx); a later 404 for it then means "gone", which
/// is what the DELETE asked for. Any other 404 stays `not_found` (a mistyped id is still told
/// so). Bounded: the newest ``kept`` ids, each for ``lifetime``; in memory only (after a restart
/// a retry answers 404 again). Pure state, shared per account.
actor FitIQDeletedLogs {
    static let kept = 500
    static let lifetime: TimeInterval = 24 * 3600

    private var deleted: [String: Date] = [:]

    static func shared(_ registry: SessionRegistry, scope: AccountScope) -> FitIQDeletedLogs {
        registry.shared("fitiq|deleted-logs|\(scope)") { FitIQDeletedLogs() }
    }

    /// Remembers that log `id` is (or may be) gone as of `now`.
    func remember(_ id: String, now: Date = Date()) {
        deleted = deleted.filter { now.timeIntervalSince($0.value) < Self.lifetime }
        deleted[id.lowercased()] = now
        if deleted.count > Self.kept, let oldest = deleted.min(by: { $0.value < $1.value }) {
            deleted[oldest.key] = nil
        }
    }

    /// Whether log `id` was deleted (or may have been) through this gateway within ``lifetime``.
    func wasDeleted(_ id: String, now: Date = Date()) -> Bool {
        guard let at = deleted[id.lowercased()] else { return false }
        return now.timeIntervalSince(at) < Self.lifetime
    }
}
