import Foundation
import Model
import Synchronization

/// The credential one profile uses for one backend (a session cookie, an access token), with
/// single-flight renewal: however many requests find it stale at once, one login or refresh
/// runs and all of them get its result. After a refusal (429, wrong password, revoked refresh
/// token) renewal is blocked until a time, and requests fail at once instead of retrying:
/// Tickedify locks an account after 5 logins in 15 minutes.
public actor AuthSession {
    /// At most `attempts` logins or refreshes in any `window` seconds, successful or not.
    public struct AttemptLimit: Sendable {
        public var attempts: Int
        public var window: TimeInterval

        public init(attempts: Int, window: TimeInterval) {
            self.attempts = attempts
            self.window = window
        }
    }

    public let backend: String
    /// The logins and refreshes this session may make: its own, or one shared with other
    /// sessions (Tickedify counts logins per client address, whatever the account).
    public let budget: AttemptBudget
    public nonisolated var limit: AttemptLimit { budget.limit }
    private var credential: String?
    private var loaded = false
    private var renewal: Task<String, any Error>?
    /// Session checks on their way, by the credential they check.
    private var checks: [String: Task<Bool, any Error>] = [:]
    private var blockedUntil: Date?
    private var blockError: BackendError?
    private let vault: any CredentialVault
    private let profile: String
    private let vaultName: String
    /// The gateway's clock (a test can move it).
    private let now: @Sendable () -> Date

    public init(
        backend: String, profile: String, vault: any CredentialVault, vaultName: String,
        limit: AttemptLimit = AttemptLimit(attempts: 10, window: 60), budget: AttemptBudget? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.backend = backend
        self.budget =
            budget
            ?? AttemptBudget(
                backend: backend, limit: limit, vault: vault, scope: profile, vaultName: vaultName + ".attempts",
                now: now)
        self.profile = profile
        self.vault = vault
        self.vaultName = vaultName
        self.now = now
    }

    /// The current credential, from memory or the vault; nil when there is none yet.
    public func current() async -> String? {
        if !loaded {
            credential = await vault.value(profile: profile, backend: backend, name: vaultName)
            loaded = true
        }
        return credential
    }

    /// Replaces `stale` with a fresh credential from `renew`, once for all callers: when another
    /// caller already replaced it, that one is returned without a new call.
    public func renew(replacing stale: String?, using renew: @escaping @Sendable () async throws -> String) async throws
        -> String
    {
        if let blockedUntil, now() < blockedUntil, let blockError {
            // A credential written to the vault meanwhile (`daygate connect` logged in again)
            // lifts the block at once.
            if let stored = await vault.value(profile: profile, backend: backend, name: vaultName),
                stored != credential, stored != stale
            {
                credential = stored
                self.blockedUntil = nil
                self.blockError = nil
                return stored
            }
            throw blockError
        }
        if let current = await current(), current != stale {
            return current
        }
        if let renewal {
            return try await SharedFlight.value(of: renewal, backend: backend, what: "the login")
        }
        // Registered before any suspension point, so concurrent callers join this renewal.
        let task = Task {
            try await self.budget.record()
            return try await renew()
        }
        renewal = task
        defer { renewal = nil }
        do {
            let fresh = try await SharedFlight.value(of: task, backend: backend, what: "the login")
            credential = fresh
            try await vault.setValue(fresh, profile: profile, backend: backend, name: vaultName)
            blockedUntil = nil
            blockError = nil
            return fresh
        } catch let error as BackendError {
            if error.kind == .reauthBlocked || error.kind == .reauthRequired || error.kind == .reauthSuspected {
                blockedUntil = now().addingTimeInterval(error.retryAfter ?? 300)
                blockError = error
            }
            throw error
        }
    }

    /// Whether `credential` is still accepted, asked of the backend with `check` (true: valid,
    /// false: refused, throwing: could not tell), once for all callers that ask while a check
    /// of the same credential is on its way: each gets an answer that arrived after it asked
    /// (from a check that started at most one round trip earlier), for one call instead of
    /// many. Nothing is remembered: a caller after the check has ended starts a new one (how
    /// long a check's answer may be relied on is the caller's decision, e.g.
    /// `TickedifySessionTrust`).
    public func check(_ credential: String, using check: @escaping @Sendable () async throws -> Bool) async throws
        -> Bool
    {
        if let running = checks[credential] {
            return try await SharedFlight.value(of: running, backend: backend, what: "the session check")
        }
        // Registered before any suspension point, so concurrent callers join this check.
        let task = Task { try await check() }
        checks[credential] = task
        defer { checks[credential] = nil }
        return try await SharedFlight.value(of: task, backend: backend, what: "the session check")
    }

    /// Forgets the credential (memory and vault), e.g. after the backend rejected it.
    public func invalidate(_ stale: String?) async throws {
        guard await current() == stale else { return }
        credential = nil
        try await vault.setValue(nil, profile: profile, backend: backend, name: vaultName)
    }
}

/// At most `limit.attempts` logins or refreshes in any `limit.window`, counted for one session
/// or for several that share it. The attempts are kept in the vault (`scope`, `vaultName`), so
/// a restart does not reset them.
public actor AttemptBudget {
    public let backend: String
    public nonisolated let limit: AuthSession.AttemptLimit
    private let vault: any CredentialVault
    private let scope: String
    private let vaultName: String
    private let now: @Sendable () -> Date
    private var attempts: [Date]?

    public init(
        backend: String, limit: AuthSession.AttemptLimit, vault: any CredentialVault, scope: String, vaultName: String,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.backend = backend
        self.limit = limit
        self.vault = vault
        self.scope = scope
        self.vaultName = vaultName
        self.now = now
    }

    /// Counts this attempt against the limit, or refuses it when the window is full.
    public func record() async throws {
        let now = self.now()
        var recent = await loadAttempts().filter { now.timeIntervalSince($0) < limit.window }
        guard recent.count < limit.attempts else {
            let wait = Int(limit.window - now.timeIntervalSince(recent[0])) + 1
            throw BackendError(
                .reauthBlocked, backend: backend,
                message:
                    "\(backend) was asked for a new session \(recent.count) times in \(Int(limit.window / 60)) min; the gateway waits \(wait) s before trying again",
                retryAfter: Double(wait)
            )
        }
        recent.append(now)
        attempts = recent
        let text = recent.map { String(Int($0.timeIntervalSince1970)) }.joined(separator: ",")
        try await vault.setValue(text, profile: scope, backend: backend, name: vaultName)
    }

    private func loadAttempts() async -> [Date] {
        if let attempts { return attempts }
        let text = await vault.value(profile: scope, backend: backend, name: vaultName) ?? ""
        let loaded = text.split(separator: ",").compactMap { Double($0) }.map(Date.init(timeIntervalSince1970:))
        attempts = loaded
        return loaded
    }
}

/// Shared state with work of its own in the background (a keeper), stopped when the registry
/// drops it.
public protocol SharedStateStopping: Sendable {
    func stopSharedState()
}

/// Every `AuthSession` of the running gateway, one per account scope (`AccountScope`, or a
/// profile's name) and backend (and name), and other per-account or per-server state a
/// backend keeps across requests (`shared(_:make:)`).
public final class SessionRegistry: Sendable {
    private let sessions = Mutex<[String: AuthSession]>([:])
    private let others = Mutex<[String: any Sendable]>([:])
    public let vault: any CredentialVault
    /// The clock of the state kept here (a test can move it forward).
    public let now: @Sendable () -> Date
    /// How state kept here waits for a time of its own clock (a test can move the clock instead).
    public let sleep: @Sendable (TimeInterval) async throws -> Void

    public init(
        vault: any CredentialVault, now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = SessionRegistry.realSleep
    ) {
        self.vault = vault
        self.now = now
        self.sleep = sleep
    }

    /// Sleeps for `seconds` of real time.
    public static let realSleep: @Sendable (TimeInterval) async throws -> Void = { seconds in
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }

    /// The value kept under `key`, made by `make` the first time it is asked for (a reference
    /// type, such as an actor, so that every request shares it).
    public func shared<Value: AnyObject & Sendable>(_ key: String, make: () -> Value) -> Value {
        others.withLock { others in
            if let existing = others[key] as? Value { return existing }
            let created = make()
            others[key] = created
            return created
        }
    }

    /// Forgets every session and shared value of one profile's backend (its settings changed
    /// at a reload): the next request makes new ones from the new settings. Requests already
    /// holding the old ones finish with them.
    public func discard(profile: String, backend: String) {
        let prefix = "\(profile)|\(backend)|"
        sessions.withLock { sessions in
            for key in sessions.keys where key.hasPrefix(prefix) { sessions[key] = nil }
        }
        let dropped = others.withLock { others in
            var dropped: [any Sendable] = []
            for key in others.keys where key.hasPrefix(prefix) {
                dropped.append(others[key]!)
                others[key] = nil
            }
            return dropped
        }
        for case let value as any SharedStateStopping in dropped { value.stopSharedState() }
    }

    /// Stops the background work of every shared value (the gateway is stopping).
    public func stopAll() {
        let values = others.withLock { Array($0.values) }
        for case let value as any SharedStateStopping in values { value.stopSharedState() }
    }

    public func session(
        profile: String, backend: String, name: String = "credential",
        limit: AuthSession.AttemptLimit = AuthSession.AttemptLimit(attempts: 10, window: 60),
        budget: AttemptBudget? = nil
    ) -> AuthSession {
        let key = "\(profile)|\(backend)|\(name)"
        return sessions.withLock { sessions in
            if let existing = sessions[key] { return existing }
            let created = AuthSession(
                backend: backend, profile: profile, vault: vault, vaultName: name, limit: limit, budget: budget,
                now: now
            )
            sessions[key] = created
            return created
        }
    }
}

/// A vault that keeps values in memory only (tests, tools that have no state folder).
public final class MemoryCredentialVault: CredentialVault {
    private let values = Mutex<[String: String]>([:])

    public init() {}

    public func value(profile: String, backend: String, name: String) async -> String? {
        values.withLock { $0["\(profile)|\(backend)|\(name)"] }
    }

    public func setValue(_ value: String?, profile: String, backend: String, name: String) async throws {
        values.withLock { $0["\(profile)|\(backend)|\(name)"] = value }
    }

    @discardableResult
    public func removeValue(ifStill expected: String, profile: String, backend: String, name: String) async throws
        -> Bool
    {
        values.withLock { values in
            let key = "\(profile)|\(backend)|\(name)"
            guard values[key] == expected else { return false }
            values[key] = nil
            return true
        }
    }

    public func takeLease(
        _ holder: String, until: Date, now: Date, profile: String, backend: String, name: String
    ) async throws -> Bool {
        values.withLock { values in
            let key = "\(profile)|\(backend)|\(name)"
            guard VaultLeaseValue.isFree(values[key], for: holder, now: now) else { return false }
            values[key] = VaultLeaseValue.text(holder: holder, until: until)
            return true
        }
    }

    public func releaseLease(_ holder: String, profile: String, backend: String, name: String) async throws {
        values.withLock { values in
            let key = "\(profile)|\(backend)|\(name)"
            if VaultLeaseValue.isHeld(values[key], by: holder) { values[key] = nil }
        }
    }
}
