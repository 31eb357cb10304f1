import Foundation
import Model

/// Whether the Tickedify account may use Tickedify: a trial or beta that ended still logs in
/// (`requiresUpgrade: true`, and a session is made) and `/api/auth/me` says `hasAccess: false`.
/// The gateway then fails Tickedify's sections with `upstream_access_expired` (cached data is
/// still served) and shows it in `/v1/sources`, keeps the session (no new logins), and asks
/// `/api/auth/me` again at most every `recheck` seconds, so an upgraded account comes back.
public struct TickedifyAccess: Sendable, Equatable, Codable {
    public static let recheck: TimeInterval = 900

    public var hasAccess: Bool
    /// `trial` or `beta` (Tickedify's `expiryType`).
    public var expiryType: String?
    /// Tickedify's `accessMessage` or login `message`, scrubbed.
    public var message: String?
    /// When Tickedify said so.
    public var checkedAt: Date

    public init(hasAccess: Bool, expiryType: String? = nil, message: String? = nil, checkedAt: Date) {
        self.hasAccess = hasAccess
        self.expiryType = expiryType
        self.message = message
        self.checkedAt = checkedAt
    }

    /// From a login answer or `/api/auth/me`; nil when it says nothing about access (the
    /// DB-error fallback of `/api/auth/me` has `hasAccess: true` and nothing else).
    public static func from(_ value: JSONValue, at now: Date) -> TickedifyAccess? {
        guard let fields = LenientFields(value) else { return nil }
        let upgrade = fields.bool("requiresUpgrade")
        let access = fields.bool("hasAccess")
        guard upgrade != nil || access != nil else { return nil }
        let refused = upgrade == true || access == false
        return TickedifyAccess(
            hasAccess: !refused, expiryType: refused ? fields.string("expiryType") : nil,
            message: refused ? fields.string("accessMessage", "message").map(BackendError.scrub) : nil,
            checkedAt: now)
    }

    /// Whether the gateway should ask Tickedify again before believing a refusal.
    public func needsRecheck(now: Date) -> Bool {
        !hasAccess && now.timeIntervalSince(checkedAt) >= Self.recheck
    }

    /// The section's error while access is refused.
    public var error: BackendError? {
        guard !hasAccess else { return nil }
        let what = expiryType.map { "the Tickedify \($0) period has ended" } ?? "Tickedify refuses access"
        return BackendError(
            .accessExpired, backend: TickedifyClient.backend,
            message: "\(what): upgrade the account to see its tasks"
                + (message.map { " (Tickedify: \($0))" } ?? ""),
            status: 403)
    }
}
