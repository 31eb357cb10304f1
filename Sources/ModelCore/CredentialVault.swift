import Foundation

/// Where sessions and rotated tokens live between calls and across restarts (the SQLite state,
/// mode 0600). Keys are per profile and backend; values are secrets and never logged.
public protocol CredentialVault: Sendable {
    func value(profile: String, backend: String, name: String) async -> String?
    /// Stores durably before returning: a rotated refresh token must survive a crash.
    func setValue(_ value: String?, profile: String, backend: String, name: String) async throws
    /// Deletes the value only while it is still `expected`: a value stored since it was read
    /// (another process's rotated token) is kept. True when it was deleted.
    @discardableResult
    func removeValue(ifStill expected: String, profile: String, backend: String, name: String) async throws -> Bool
    /// Takes the lease `name` for `holder` until `until`, when nobody holds it or its holder's
    /// time has passed at `now`; true when taken. Atomic across every process sharing the vault.
    func takeLease(_ holder: String, until: Date, now: Date, profile: String, backend: String, name: String)
        async throws -> Bool
    /// Gives the lease `name` back if `holder` still holds it.
    func releaseLease(_ holder: String, profile: String, backend: String, name: String) async throws
}

/// How a lease is kept as a vault value: its holder and when it ends. A holder names its process
/// (`ProcessIdentity`) and the call that took it, so a lease left by a process that was killed
/// while holding it is free at once, not only when its end passes.
public enum VaultLeaseValue {
    public static func text(holder: String, until: Date) -> String {
        "\(holder) \(until.timeIntervalSince1970)"
    }

    /// A holder's name for the call `call` of `process`.
    public static func holder(call: String, process: ProcessIdentity = .current) -> String {
        "\(process.text)/\(call)"
    }

    /// Whether the stored `text` lets `holder` take the lease at `now`: nobody holds it, it is
    /// `holder`'s own, its end has passed, or its holder's process is gone (`liveness`).
    public static func isFree(
        _ text: String?, for holder: String, now: Date,
        liveness: (ProcessIdentity) -> ProcessIdentity.Liveness = ProcessIdentity.livenessOnThisMachine
    ) -> Bool {
        guard let text else { return true }
        let parts = text.split(separator: " ")
        guard parts.count == 2, let end = Double(parts[1]) else { return true }
        if String(parts[0]) == holder || end <= now.timeIntervalSince1970 { return true }
        guard let slash = parts[0].firstIndex(of: "/"), let process = ProcessIdentity(text: parts[0][..<slash]) else {
            return false
        }
        return liveness(process) == .gone
    }

    /// Whether `text` is held by `holder`.
    public static func isHeld(_ text: String?, by holder: String) -> Bool {
        text?.split(separator: " ").first.map(String.init) == holder
    }
}
