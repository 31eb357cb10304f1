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
}
