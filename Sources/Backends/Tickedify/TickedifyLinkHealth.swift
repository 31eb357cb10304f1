import Foundation

/// What daygate knows about the persistent login link `daygate connect tickedify` kept, and
/// what to do with it next. Pure: the client loads it from the vault, asks `decision(now:)`,
/// and records what `/al/<token>` answered.
///
/// Tickedify answers `/al/<token>` with the same `302` and no cookie for a token it does not
/// know, for a session it could not save and for any database error (recorded from the real
/// server: an unknown token and a valid link while its database was down get byte-identical
/// answers). So one such answer proves nothing: the link is kept and tried again with a
/// back-off (1 min, doubling, at most 1 h), the configured password is used meanwhile if there
/// is one, and `/v1/sources` shows `reauth_suspected` with the time of the first failure. Only
/// when the link has failed for `giveUpAfter` (three days) and at least `minimumFailures` times
/// does daygate ask the person to connect again — and even then it keeps the link (it is tried
/// once per back-off still) until `daygate connect` replaces it.
public struct TickedifyLinkHealth: Sendable, Equatable {
    /// When the link first failed since it last worked (nil: it works, as far as daygate knows).
    public var firstFailure: Date?
    /// When it last failed.
    public var lastFailure: Date?
    /// How many times in a row.
    public var failures: Int

    public static let firstBackoff: TimeInterval = 60
    public static let maximumBackoff: TimeInterval = 3600
    public static let giveUpAfter: TimeInterval = 3 * 86_400
    public static let minimumFailures = 5

    public init(firstFailure: Date? = nil, lastFailure: Date? = nil, failures: Int = 0) {
        self.firstFailure = firstFailure
        self.lastFailure = lastFailure
        self.failures = failures
    }

    public enum State: String, Sendable {
        /// The link worked when last used (or has not failed yet).
        case ok
        /// It failed, but not long or often enough to say it is gone.
        case reauthSuspected = "reauth_suspected"
        /// It has failed for `giveUpAfter` and `minimumFailures` times: the person should
        /// connect again (the link is still kept and tried).
        case reauthRequired = "reauth_required"
    }

    public var state: State {
        guard let firstFailure, let lastFailure, failures > 0 else { return .ok }
        if failures >= Self.minimumFailures, lastFailure.timeIntervalSince(firstFailure) >= Self.giveUpAfter {
            return .reauthRequired
        }
        return .reauthSuspected
    }

    /// When the link may be tried again: nil when now.
    public func nextTry(now: Date) -> Date? {
        guard let lastFailure, failures > 0 else { return nil }
        let exponent = min(failures - 1, 10)
        let wait = min(Self.firstBackoff * pow(2, Double(exponent)), Self.maximumBackoff)
        let next = lastFailure.addingTimeInterval(wait)
        return next > now ? next : nil
    }

    /// `/al/` answered without a session.
    public mutating func failed(at now: Date) {
        if firstFailure == nil { firstFailure = now }
        lastFailure = now
        failures += 1
    }

    /// `/al/` gave a session: whatever went wrong before is forgotten.
    public mutating func worked() {
        self = TickedifyLinkHealth()
    }

    // MARK: - Kept in the vault

    static let vaultName = "link_health"

    /// `first,last,count` in whole seconds since 1970.
    var record: String? {
        guard let firstFailure, let lastFailure, failures > 0 else { return nil }
        return "\(Int(firstFailure.timeIntervalSince1970)),\(Int(lastFailure.timeIntervalSince1970)),\(failures)"
    }

    init(record: String?) {
        let parts = (record ?? "").split(separator: ",").compactMap { Int($0) }
        guard parts.count == 3, parts[2] > 0 else {
            self.init()
            return
        }
        self.init(
            firstFailure: Date(timeIntervalSince1970: TimeInterval(parts[0])),
            lastFailure: Date(timeIntervalSince1970: TimeInterval(parts[1])), failures: parts[2])
    }
}
