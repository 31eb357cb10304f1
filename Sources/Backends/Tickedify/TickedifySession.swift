import Foundation
import Model

/// The session of one Tickedify account, shared by every request of every profile that uses
/// the account (one per `AccountScope` in the `SessionRegistry`): the cookie with its logins
/// and checks (`AuthSession`), the trust in it (`TickedifySessionTrust`) and whether the
/// account has access (`TickedifyAccess`, kept in the vault as `access` for `/v1/sources`).
///
/// The cookie's expiry is kept in the vault next to the cookie (`session_cookie.expires`,
/// with a fingerprint of the cookie it belongs to), so it survives a restart; the trust
/// itself is kept in memory only, so the first call after a restart checks the session.
///
/// While the session is in use it is kept proven by a keeper (``keepWarm(using:)``): one task
/// per account that sleeps until the proof is about to run out and then checks the session,
/// for as long as ``TickedifySessionTrust/keepWarmCheck(now:)`` says.
public actor TickedifySession: SharedStateStopping {
    public static let vaultName = "session_cookie"
    static let expiresName = vaultName + ".expires"
    public static let accessName = "access"

    /// The cookie, its logins (single-flight, limited) and its shared checks.
    public nonisolated let auth: AuthSession
    private var trust: TickedifySessionTrust
    private var restoring = false
    private var access: TickedifyAccess?
    private var accessLoaded = false
    nonisolated let vault: any CredentialVault
    nonisolated let profile: String
    private let clock: @Sendable () -> Date
    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private var keeper: Task<Void, Never>?
    private var stopped = false

    public init(
        auth: AuthSession, vault: any CredentialVault, profile: String, policy: TickedifySessionTrust.Policy,
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = SessionRegistry.realSleep
    ) {
        self.auth = auth
        self.vault = vault
        self.profile = profile
        self.trust = TickedifySessionTrust(policy: policy)
        self.clock = now
        self.sleep = sleep
    }

    /// The time by the session's clock.
    public nonisolated func now() -> Date { clock() }

    /// The trust as it stands (for tests and diagnostics).
    public var state: TickedifySessionTrust { trust }

    /// The current cookie, nil when there is none yet. The first time, its expiry is read from
    /// the vault.
    public func cookie() async -> String? {
        guard let cookie = await auth.current() else { return nil }
        if trust.cookie == nil, !restoring {
            restoring = true
            let stored = await vault.value(profile: profile, backend: TickedifyClient.backend, name: Self.expiresName)
            // A login may have set the state while the vault was read: that one is newer.
            if trust.cookie == nil {
                trust.restored(cookie: cookie, expires: Self.expiry(stored, of: cookie), now: now())
            }
            restoring = false
        }
        return cookie
    }

    /// Whether `cookie` must be checked before a call that needs a proven session.
    public func needsCheck(_ cookie: String) -> Bool {
        trust.needsCheck(cookie, now: now())
    }

    /// True once for `cookie` when it is close enough to its expiry to be renewed ahead of time.
    public func claimRenewal(of cookie: String) -> Bool {
        guard cookie == trust.cookie else { return false }
        return trust.claimRenewal(now: now())
    }

    /// A login sent at `sentAt` gave `cookie`: it is proven, and its expiry goes to the vault.
    public func loggedIn(_ cookie: TickedifySessionCookie, sentAt: Date) async throws {
        let (expires, record) = Self.expiry(of: cookie, at: now())
        trust.loggedIn(cookie: cookie.pair, sentAt: sentAt, expires: expires)
        try await vault.setValue(record, profile: profile, backend: TickedifyClient.backend, name: Self.expiresName)
    }

    /// A request with `cookie`, sent at `sentAt`, got an answer proving the session.
    public func proven(_ cookie: String, sentAt: Date) {
        trust.proven(cookie, sentAt: sentAt)
    }

    /// Ends the trust.
    public func failed(_ failure: TickedifySessionTrust.Failure) {
        trust.failed(failure, at: now())
    }

    /// A call that needs a proven session is being made (keep-warm checks do not count).
    public func used() {
        trust.used(at: now())
    }

    /// Starts the keeper unless it runs: it sleeps until the next keep-warm check is due and
    /// sends it with `check` (given the cookie), until the trust says no more — the session idle
    /// for longer than `keep_warm`, the trust ended (a check that failed ends it), or a check
    /// that did not move the proof forward.
    public func keepWarm(using check: @escaping @Sendable (String) async -> Void) {
        guard keeper == nil, !stopped, trust.keepWarmCheck(now: now()) != nil else { return }
        keeper = Task { await self.keepWarmLoop(check) }
    }

    private func keepWarmLoop(_ check: @Sendable (String) async -> Void) async {
        defer { keeper = nil }
        var checked: Date?
        while !stopped, !Task.isCancelled, let due = trust.keepWarmCheck(now: now()), let cookie = trust.cookie {
            let wait = due.timeIntervalSince(now())
            if wait > 0 {
                do { try await sleep(wait) } catch { return }
                continue
            }
            // The check before did not prove the session again (an error that ends nothing):
            // stop rather than ask again at once; the next call checks as it would anyway.
            if let checked, due <= checked { return }
            checked = due
            await check(cookie)
        }
    }

    /// Waits until the keeper has stopped (tests).
    public func keeperStopped() async {
        await keeper?.value
    }

    /// Whether a keeper runs (tests, diagnostics).
    public var isKeepingWarm: Bool { keeper != nil }

    /// Stops the keeper for good (the session's settings were replaced at a reload).
    public nonisolated func stopSharedState() {
        Task { await self.stopKeeper() }
    }

    private func stopKeeper() {
        stopped = true
        keeper?.cancel()
    }

    /// What Tickedify last said about the account's access (nil: nothing yet).
    public func currentAccess() async -> TickedifyAccess? {
        if !accessLoaded {
            let stored = await vault.value(profile: profile, backend: TickedifyClient.backend, name: Self.accessName)
            if !accessLoaded {
                access = stored.flatMap { try? JSONCoding.decoder.decode(TickedifyAccess.self, from: Data($0.utf8)) }
                accessLoaded = true
            }
        }
        return access
    }

    /// Tickedify said something about the account's access (a login, `/api/auth/me`).
    public func record(_ access: TickedifyAccess) async throws {
        let previous = await currentAccess()
        self.access = access
        guard previous?.hasAccess != access.hasAccess || previous?.message != access.message || !access.hasAccess
        else { return }
        let text = String(decoding: try JSONCoding.encode(access), as: UTF8.self)
        try await vault.setValue(text, profile: profile, backend: TickedifyClient.backend, name: Self.accessName)
    }

    /// The account's stored access, for `/v1/sources` (no session needed).
    public static func storedAccess(vault: any CredentialVault, scope: AccountScope) async -> TickedifyAccess? {
        await vault.value(profile: scope.description, backend: TickedifyClient.backend, name: accessName).flatMap {
            try? JSONCoding.decoder.decode(TickedifyAccess.self, from: Data($0.utf8))
        }
    }

    /// When `cookie`, set at `now`, expires, and the vault record of it.
    static func expiry(of cookie: TickedifySessionCookie, at now: Date) -> (expires: Date, record: String) {
        let expires = now.addingTimeInterval(cookie.lifetime)
        return (expires, record(expires: expires, of: cookie.pair))
    }

    /// `<unix seconds> <fingerprint of the cookie>`.
    static func record(expires: Date, of cookie: String) -> String {
        "\(Int(expires.timeIntervalSince1970.rounded(.down))) \(CredentialFingerprint.of([cookie]))"
    }

    /// The expiry in `record` when it belongs to `cookie`; nil otherwise.
    static func expiry(_ record: String?, of cookie: String) -> Date? {
        guard let parts = record?.split(separator: " "), parts.count == 2, let seconds = Double(parts[0]),
            parts[1] == CredentialFingerprint.of([cookie])
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
