import Foundation
import Model
import Synchronization
import Testing

@testable import Backends

/// The vault Kantine Koning's enrollment marks are read through: one read per key, writes
/// through to the vault, and a failed write leaves the next read to the vault.
@Suite("Remembered vault")
struct RememberedVaultTests {
    final class CountingVault: CredentialVault {
        let inner = MemoryCredentialVault()
        let reads = Mutex(0)
        let failWrites = Mutex(false)
        struct Refused: Error {}

        func value(profile: String, backend: String, name: String) async -> String? {
            reads.withLock { $0 += 1 }
            return await inner.value(profile: profile, backend: backend, name: name)
        }

        func setValue(_ value: String?, profile: String, backend: String, name: String) async throws {
            if failWrites.withLock({ $0 }) { throw Refused() }
            try await inner.setValue(value, profile: profile, backend: backend, name: name)
        }

        func removeValue(ifStill expected: String, profile: String, backend: String, name: String) async throws
            -> Bool
        {
            if failWrites.withLock({ $0 }) { throw Refused() }
            return try await inner.removeValue(ifStill: expected, profile: profile, backend: backend, name: name)
        }

        func takeLease(_ holder: String, until: Date, now: Date, profile: String, backend: String, name: String)
            async throws -> Bool
        {
            try await inner.takeLease(holder, until: until, now: now, profile: profile, backend: backend, name: name)
        }

        func releaseLease(_ holder: String, profile: String, backend: String, name: String) async throws {
            try await inner.releaseLease(holder, profile: profile, backend: backend, name: name)
        }
    }

    @Test func readsOnceWritesThroughAndForgetsOnAFailedWrite() async throws {
        let base = CountingVault()
        let vault = RememberedVault(base)
        #expect(await vault.value(profile: "p", backend: "b", name: "mark") == nil)
        #expect(await vault.value(profile: "p", backend: "b", name: "mark") == nil)
        #expect(base.reads.withLock { $0 } == 1, "a missing value is remembered too")

        try await vault.setValue("over", profile: "p", backend: "b", name: "mark")
        #expect(await base.inner.value(profile: "p", backend: "b", name: "mark") == "over")
        #expect(await vault.value(profile: "p", backend: "b", name: "mark") == "over")
        #expect(base.reads.withLock { $0 } == 1)

        base.failWrites.withLock { $0 = true }
        await #expect(throws: CountingVault.Refused.self) {
            try await vault.setValue(nil, profile: "p", backend: "b", name: "mark")
        }
        #expect(await vault.value(profile: "p", backend: "b", name: "mark") == "over", "read from the vault again")
        #expect(base.reads.withLock { $0 } == 2)
    }
}
