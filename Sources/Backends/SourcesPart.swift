import Foundation
import Model
import OpenAPIKit

/// What one backend adds to its line of `/v1/sources` beside the figures every backend has
/// (configured, health, cache): Kantine Koning lists its enrollments.
public protocol SourcesPart: Sendable {
    /// Extra keys of the backend's line.
    func details(_ input: SourcesInput) async -> [String: JSONValue]

    /// The schema of every key `details` writes, for /v1/sources' schema in /openapi.json.
    var detailSchemas: [String: JSONSchema] { get }

    /// The components `detailSchemas` refer to.
    var detailComponents: [SchemaComponent] { get }
}

extension SourcesPart {
    public var detailComponents: [SchemaComponent] { [] }
}

/// What a sources part reads: the profile, the vault, and the health of each scope.
public struct SourcesInput: Sendable {
    public var profileName: String
    public var profile: ProfileConfig
    public var vault: any CredentialVault
    /// The health of one scope of the backend (nil: the backend's own line).
    public var health: @Sendable (_ scope: String?) -> SourceHealth

    public init(
        profileName: String, profile: ProfileConfig, vault: any CredentialVault,
        health: @escaping @Sendable (_ scope: String?) -> SourceHealth
    ) {
        self.profileName = profileName
        self.profile = profile
        self.vault = vault
        self.health = health
    }
}
