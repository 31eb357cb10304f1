import Foundation
import Model

/// The enrollments `daygate connect kantinekoning` made (`KantineKoningConnectedEnrollment`),
/// kept in the vault as one JSON record (`enrollments`) per profile; the gateway's Kantine
/// Koning calls use them next to the config's `enrollments`, and `/v1/sources` lists them.
public struct KantineKoningConnectedEnrollments: Sendable {
    static let vaultName = "enrollments"
    public let vault: any CredentialVault
    public let profile: String

    public init(vault: any CredentialVault, profile: String) {
        self.vault = vault
        self.profile = profile
    }

    public func all() async -> [KantineKoningConnectedEnrollment] {
        guard
            let text = await vault.value(profile: profile, backend: KantineKoningClient.backend, name: Self.vaultName),
            let list = try? Self.decoder.decode([KantineKoningConnectedEnrollment].self, from: Data(text.utf8))
        else { return [] }
        return list
    }

    public func save(_ list: [KantineKoningConnectedEnrollment]) async throws {
        let text = list.isEmpty ? nil : String(decoding: try Self.encoder.encode(list), as: UTF8.self)
        try await vault.setValue(text, profile: profile, backend: KantineKoningClient.backend, name: Self.vaultName)
    }

    /// The config's enrollments followed by the connected ones.
    public static func merged(_ settings: KantineKoningSettings, vault: any CredentialVault, profile: String) async
        -> KantineKoningSettings
    {
        var merged = settings
        let connected = await KantineKoningConnectedEnrollments(vault: vault, profile: profile).all()
        merged.enrollments += connected.map(\.enrollment)
        return merged
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
