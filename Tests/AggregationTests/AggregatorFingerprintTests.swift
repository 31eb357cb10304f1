import Backends
import Cache
import Foundation
import Model
import Testing

@testable import Aggregation

/// The part of a cache key that names the account and settings is kept per profile and
/// operation once made; what is kept must be what making it again gives.
@Suite("Aggregator fingerprints")
struct AggregatorFingerprintTests {
    /// An operation whose account fingerprint is its own name's (two operations, two accounts).
    struct AccountOperation: BackendOperation {
        let name: String
        let backend: String
        var arguments: [OperationArgument] { [] }
        var defaultTTL: TimeInterval { 60 }
        var bodySchema: SchemaComponent { .anyJSON }
        func isConfigured(for profile: ProfileConfig) -> Bool { true }
        func credentialFingerprint(for profile: ProfileConfig) -> String { "account-of-\(name)" }
        func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
            arguments
        }
        func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
            OperationOutput(body: Data("[]".utf8))
        }
    }

    @Test func eachProfileAndOperationKeepsItsOwnFingerprint() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-fp-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let profiles = ["anna": ProfileConfig(), "ben": ProfileConfig()]
        let config = DaygateConfig(stateDir: folder, timezone: "Europe/Amsterdam", profiles: profiles)
        let aggregator = Aggregator(
            config: config,
            cache: CacheStore(
                database: try CacheDatabase(stateDirectory: folder), maxBytes: 1_048_576, memoryBytes: 1_048_576),
            http: UpstreamHTTP(client: .shared), sessions: SessionRegistry(vault: MemoryCredentialVault()))
        let operations = [
            AccountOperation(name: "alpha.list", backend: "alpha"),
            AccountOperation(name: "beta.list", backend: "beta"),
            AccountOperation(name: "beta.other", backend: "beta"),
        ]
        for round in 1...2 {
            for (name, profile) in profiles {
                var seen: Set<String> = []
                for operation in operations {
                    let made = CredentialFingerprint.of([
                        operation.credentialFingerprint(for: profile),
                        profile.settingsFingerprint(of: operation.backend),
                    ])
                    let kept = aggregator.fingerprint(of: operation, profileName: name, profile: profile)
                    #expect(kept == made, "round \(round), \(name), \(operation.name)")
                    seen.insert(kept)
                }
                #expect(seen.count == operations.count, "round \(round), \(name): two operations shared a fingerprint")
            }
        }
    }
}
