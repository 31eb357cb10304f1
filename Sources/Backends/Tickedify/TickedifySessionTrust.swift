import Foundation

/// Whether a Tickedify session cookie may be used on a route that needs a session without
/// asking `GET /api/auth/me` first, and when to log in again before the cookie runs out: the
/// decisions only, fed with events and asked with a time, without sockets or clocks.
///
/// The real server crashes on a planning route called without a valid session, so such a call
/// goes out only with a session *proven* just before. A proof is any answer that shows the
/// server knows the cookie: a login, `/api/auth/me` 200, any 2xx of a call made with it. It
/// counts for ``Policy/window`` seconds from the moment the proving request was *sent*, and
/// only while the cookie's own expiry is more than ``Policy/expiryMargin`` away. A 401, a
/// dropped or refused connection, a timeout, and any failure of a call that needed a proven
/// session end it at once; a proof sent before such an ending does not bring it back.
///
/// Independently of the window, a cookie within ``Policy/renewalLead`` of its expiry is
/// renewed by a login before a call, at most once per cookie (``claimRenewal(now:)``).
///
/// While the session is in use it is kept proven (``keepWarmCheck(now:)``): a check goes out
/// just before the proof runs out, as long as a call that needed the session was made within
/// ``Policy/keepWarm`` — so the first call after a pause shorter than that needs no check of its
/// own, and a session nobody uses is left alone.
public struct TickedifySessionTrust: Sendable, Equatable {
    public struct Policy: Sendable, Equatable {
        /// How long a proof counts, in seconds; 0 turns trust off (check before every call).
        public var window: TimeInterval
        /// No trust when the cookie expires within this many seconds.
        public var expiryMargin: TimeInterval
        /// A login ahead of time when the cookie expires within this many seconds.
        public var renewalLead: TimeInterval
        /// How long after the last call that needed a proven session the session is kept proven
        /// by checks of its own; 0 turns this off.
        public var keepWarm: TimeInterval

        public init(
            window: TimeInterval = 30, expiryMargin: TimeInterval = 600, renewalLead: TimeInterval = 3600,
            keepWarm: TimeInterval = 0
        ) {
            self.window = window
            self.expiryMargin = expiryMargin
            self.renewalLead = renewalLead
            self.keepWarm = keepWarm
        }

        /// How long before the proof runs out a keep-warm check goes out: 5 s, or half the
        /// window when that is shorter.
        public var keepWarmLead: TimeInterval { min(5, window / 2) }

        public static let standard = Policy()
    }

    /// What ends the trust.
    public enum Failure: Sendable, Equatable, CaseIterable {
        /// Tickedify answered 401 to a call.
        case unauthorized
        /// A connection could not be made, or was dropped or reset (a crashed server).
        case unreachable
        /// No answer in time (a crashed server may simply never answer).
        case timeout
        /// A call that needed a proven session (a planning route, a task list) failed in any way.
        case provenCallFailed
    }

    public var policy: Policy
    /// The cookie the state is about (the latest one logged in or read from the vault).
    public private(set) var cookie: String?
    /// When the cookie was obtained by a login; nil for one read from the vault.
    public private(set) var issued: Date?
    /// When the cookie runs out.
    public private(set) var expires: Date?
    /// When the request that last proved the cookie was sent.
    public private(set) var provenAt: Date?
    /// When the trust was last ended.
    public private(set) var endedAt: Date?
    /// Whether the cookie's early renewal was already claimed (it is tried once per cookie).
    public private(set) var renewalClaimed = false
    /// When a call that needed a proven session was last made (keep-warm checks do not count).
    public private(set) var usedAt: Date?

    public init(policy: Policy = .standard) {
        self.policy = policy
    }

    // MARK: - Events

    /// A login gave `cookie`, running out at `expires`; the login was sent at `sentAt` and
    /// proves the cookie from then on (unless the trust ended after that). A failure at the
    /// very instant the login was sent is the one that led to it (a coarse or test clock), so
    /// it does not count against the new cookie.
    public mutating func loggedIn(cookie: String, sentAt: Date, expires: Date) {
        self.cookie = cookie
        issued = sentAt
        self.expires = expires
        renewalClaimed = false
        provenAt = (endedAt.map { sentAt >= $0 } ?? true) ? sentAt : nil
    }

    /// `cookie` came from the vault (a restart), running out at `expires`; nil when the vault
    /// does not know, which counts as running out `now` (checked every time, renewed once).
    /// Nothing proves it yet: trust is never stored.
    public mutating func restored(cookie: String, expires: Date?, now: Date) {
        self.cookie = cookie
        issued = nil
        self.expires = expires ?? now
        provenAt = nil
        renewalClaimed = false
    }

    /// A request with `cookie`, sent at `sentAt`, got an answer that proves the session. Ignored
    /// for another cookie than the current one, and when the trust ended after it was sent.
    public mutating func proven(_ cookie: String, sentAt: Date) {
        guard cookie == self.cookie else { return }
        if let endedAt, sentAt <= endedAt { return }
        provenAt = max(provenAt ?? sentAt, sentAt)
    }

    /// Something went wrong (`failure`) at `at`: the trust ends, whichever cookie the call had.
    public mutating func failed(_ failure: Failure, at: Date) {
        provenAt = nil
        endedAt = max(endedAt ?? at, at)
    }

    /// Claims the early renewal of the current cookie when it is due (``shouldRenewProactively(now:)``):
    /// true once per cookie, false afterwards, so a failed or refused login is not repeated.
    public mutating func claimRenewal(now: Date) -> Bool {
        guard shouldRenewProactively(now: now) else { return false }
        renewalClaimed = true
        return true
    }

    /// A call that needs a proven session is being made at `at` (not a keep-warm check).
    public mutating func used(at: Date) {
        usedAt = max(usedAt ?? at, at)
    }

    // MARK: - Questions

    /// When the next keep-warm check should go out: ``Policy/keepWarmLead`` before the current
    /// proof runs out, if that moment is within ``Policy/keepWarm`` of the last use. Nil when
    /// keeping warm is off, the window is 0, nothing proves the cookie (the trust ended, or never
    /// began), it was never used, the cookie would be too close to its expiry to be trusted then
    /// (the next call renews it), or the session has been idle too long.
    public func keepWarmCheck(now: Date) -> Date? {
        guard policy.keepWarm > 0, policy.window > 0, cookie != nil, let provenAt, let usedAt, let expires else {
            return nil
        }
        let due = provenAt.addingTimeInterval(policy.window - policy.keepWarmLead)
        guard due < usedAt.addingTimeInterval(policy.keepWarm) else { return nil }
        guard expires.timeIntervalSince(due) > policy.expiryMargin else { return nil }
        return due
    }

    /// Whether `cookie` must be checked (`GET /api/auth/me`) before a call that needs a proven
    /// session: always with a window of 0, for a cookie the state is not about, without a proof
    /// inside the window, or when the cookie runs out within the margin.
    public func needsCheck(_ cookie: String, now: Date) -> Bool {
        !isTrusted(cookie, now: now)
    }

    /// The opposite of ``needsCheck(_:now:)``.
    public func isTrusted(_ cookie: String, now: Date) -> Bool {
        guard policy.window > 0, cookie == self.cookie, let provenAt, let expires else { return false }
        let age = now.timeIntervalSince(provenAt)
        // A clock that went back does not stretch the window.
        guard age >= 0, age < policy.window else { return false }
        return expires.timeIntervalSince(now) > policy.expiryMargin
    }

    /// Whether the current cookie should be replaced by a login before the next call: it runs out
    /// within the lead (or has run out), its renewal was not tried yet, and it lived longer than
    /// the lead (a cookie born that short would be renewed on every call).
    public func shouldRenewProactively(now: Date) -> Bool {
        guard cookie != nil, !renewalClaimed, let expires else { return false }
        if let issued, expires.timeIntervalSince(issued) <= policy.renewalLead { return false }
        return expires.timeIntervalSince(now) <= policy.renewalLead
    }
}
