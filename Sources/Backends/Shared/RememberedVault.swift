import Foundation
import Model
import Synchronization

/// A vault whose values are remembered in memory after the first read (a missing value too),
/// written through to the vault it wraps. Only for values this gateway process alone writes —
/// Kantine Koning's enrollment marks, read before every call to an enrollment — so the
/// remembered value is always the stored one; a value another process may write (`daygate
/// connect`) must be read from the vault itself.
final class RememberedVault: CredentialVault {
    private let base: any CredentialVault
    /// Per key: the remembered value, and how many writes it has seen (a read that began
    /// before a write does not put back the older value).
    private let remembered = Mutex<[String: (value: String??, writes: Int)]>([:])

    init(_ base: any CredentialVault) {
        self.base = base
    }

    private static func key(_ profile: String, _ backend: String, _ name: String) -> String {
        "\(profile)|\(backend)|\(name)"
    }

    func value(profile: String, backend: String, name: String) async -> String? {
        let key = Self.key(profile, backend, name)
        let (known, writes) = remembered.withLock { ($0[key]?.value, $0[key]?.writes ?? 0) }
        if let known { return known }
        let value = await base.value(profile: profile, backend: backend, name: name)
        remembered.withLock { remembered in
            if (remembered[key]?.writes ?? 0) == writes { remembered[key] = (.some(value), writes) }
        }
        return value
    }

    func setValue(_ value: String?, profile: String, backend: String, name: String) async throws {
        let key = Self.key(profile, backend, name)
        // Forgotten first: a failed write leaves the next read to the vault.
        remembered.withLock { $0[key] = (nil, ($0[key]?.writes ?? 0) + 1) }
        try await base.setValue(value, profile: profile, backend: backend, name: name)
        remembered.withLock { $0[key] = (.some(value), ($0[key]?.writes ?? 0) + 1) }
    }

    @discardableResult
    func removeValue(ifStill expected: String, profile: String, backend: String, name: String) async throws -> Bool {
        let key = Self.key(profile, backend, name)
        remembered.withLock { $0[key] = (nil, ($0[key]?.writes ?? 0) + 1) }
        return try await base.removeValue(ifStill: expected, profile: profile, backend: backend, name: name)
    }

    func takeLease(_ holder: String, until: Date, now: Date, profile: String, backend: String, name: String)
        async throws -> Bool
    {
        remembered.withLock { $0[Self.key(profile, backend, name)] = nil }
        return try await base.takeLease(holder, until: until, now: now, profile: profile, backend: backend, name: name)
    }

    func releaseLease(_ holder: String, profile: String, backend: String, name: String) async throws {
        remembered.withLock { $0[Self.key(profile, backend, name)] = nil }
        try await base.releaseLease(holder, profile: profile, backend: backend, name: name)
    }
}
