import Foundation
import Model
import Synchronization

/// The credential one profile uses for one backend (a session cookie, an access token), with
/// single-flight renewal: however many requests find it stale at once, one login or refresh
/// runs and all of them get its result. After a refusal (429, wrong password, revoked refresh
/// token) renewal is blocked until a time, and requests fail at once instead of retrying:
/// Tickedify locks an account after 5 logins in 15 minutes.
public actor AuthSession {
    public let backend: String
    private var credential: String?
    private var loaded = false
    private var renewal: Task<String, any Error>?
    private var blockedUntil: Date?
    private var blockError: BackendError?
    private let vault: any CredentialVault
    private let profile: String
    private let vaultName: String
    private(set) public var renewals = 0

    public init(backend: String, profile: String, vault: any CredentialVault, vaultName: String) {
        self.backend = backend
        self.profile = profile
        self.vault = vault
        self.vaultName = vaultName
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
    public func renew(replacing stale: String?, using renew: @escaping @Sendable () async throws -> String) async throws -> String {
        if let blockedUntil, Date() < blockedUntil, let blockError {
            throw blockError
        }
        if let current = await current(), current != stale {
            return current
        }
        if let renewal {
            return try await renewal.value
        }
        let task = Task { try await renew() }
        renewal = task
        defer { renewal = nil }
        do {
            let fresh = try await task.value
            renewals += 1
            credential = fresh
            try await vault.setValue(fresh, profile: profile, backend: backend, name: vaultName)
            blockedUntil = nil
            blockError = nil
            return fresh
        } catch let error as BackendError {
            if error.kind == .reauthBlocked || error.kind == .reauthRequired {
                blockedUntil = Date().addingTimeInterval(error.retryAfter ?? 300)
                blockError = error
            }
            throw error
        }
    }

    /// Forgets the credential (memory and vault), e.g. after the backend rejected it.
    public func invalidate(_ stale: String?) async throws {
        guard await current() == stale else { return }
        credential = nil
        try await vault.setValue(nil, profile: profile, backend: backend, name: vaultName)
    }
}

/// Every `AuthSession` of the running gateway, one per profile and backend (and name).
public final class SessionRegistry: Sendable {
    private let sessions = Mutex<[String: AuthSession]>([:])
    public let vault: any CredentialVault

    public init(vault: any CredentialVault) {
        self.vault = vault
    }

    public func session(profile: String, backend: String, name: String = "credential") -> AuthSession {
        let key = "\(profile)|\(backend)|\(name)"
        return sessions.withLock { sessions in
            if let existing = sessions[key] { return existing }
            let created = AuthSession(backend: backend, profile: profile, vault: vault, vaultName: name)
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
}
