import Cache
import Foundation
import Model
import Testing

/// A lease in the SQLite vault, held by another real process: while that process runs the lease
/// is its own; once it is killed (as a gateway can be, between taking a refresh lease and giving
/// it back) the lease is free at once, not a minute later when its end passes.
@Suite("SQLite vault lease")
struct SQLiteCredentialVaultLeaseTests {
    @Test(.timeLimit(.minutes(1))) func aLeaseOfAKilledProcessIsFreeAtOnce() async throws {
        #if os(Linux)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-vault-lease-\(UUID())")
                .path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let vault = SQLiteCredentialVault(database: try CacheDatabase(stateDirectory: folder))
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sleep")
            child.arguments = ["30"]
            try child.run()
            defer { if child.isRunning { child.terminate() } }
            let stat = try String(contentsOfFile: "/proc/\(child.processIdentifier)/stat", encoding: .utf8)
            var process = ProcessIdentity.current
            process.pid = child.processIdentifier
            process.start = try #require(ProcessIdentity.start(ofStatLine: Substring(stat)))
            let now = Date()
            // The child "holds" the lease for a minute.
            try await vault.setValue(
                VaultLeaseValue.text(
                    holder: VaultLeaseValue.holder(call: "child", process: process), until: now.addingTimeInterval(60)),
                profile: "p", backend: "fitiq", name: "refresh_lease")
            let me = VaultLeaseValue.holder(call: "me")
            #expect(
                try await !vault.takeLease(
                    me, until: now.addingTimeInterval(60), now: now, profile: "p", backend: "fitiq",
                    name: "refresh_lease"))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(
                try await vault.takeLease(
                    me, until: now.addingTimeInterval(60), now: now, profile: "p", backend: "fitiq",
                    name: "refresh_lease"))
        #endif
    }
}
