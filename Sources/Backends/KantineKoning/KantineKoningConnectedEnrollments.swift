import Foundation
import Model
import Synchronization

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

    /// How long the gateway's calls use a list read before without reading the vault again:
    /// `daygate connect` writes it from another process, and a new enrollment shows once the
    /// diensten entry expires anyway (minutes), so reading it on every cold fetch (an SQLite
    /// read before the calls can start) buys nothing.
    static let rereadInterval: TimeInterval = 10

    /// The config's enrollments followed by the connected ones, as the gateway's calls use them.
    static func merged(_ settings: KantineKoningSettings, context: OperationContext) async -> KantineKoningSettings {
        let vault = context.vault
        let recent = context.sessions.shared("kantinekoning|connected") { RecentConnectedEnrollments() }
        let now = context.now
        let connected: [KantineKoningConnectedEnrollment]
        if let kept = recent.kept(profile: context.profileName, now: now) {
            connected = kept
        } else {
            connected = await KantineKoningConnectedEnrollments(vault: vault, profile: context.profileName).all()
            recent.keep(connected, profile: context.profileName, now: now)
        }
        var merged = settings
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

/// The connected enrollments each profile's calls read last, and when (one per gateway).
final class RecentConnectedEnrollments: Sendable {
    private let lists = Mutex<[String: (at: Date, list: [KantineKoningConnectedEnrollment])]>([:])

    func kept(profile: String, now: Date) -> [KantineKoningConnectedEnrollment]? {
        lists.withLock { lists in
            guard let kept = lists[profile], now >= kept.at,
                now.timeIntervalSince(kept.at) < KantineKoningConnectedEnrollments.rereadInterval
            else { return nil }
            return kept.list
        }
    }

    func keep(_ list: [KantineKoningConnectedEnrollment], profile: String, now: Date) {
        lists.withLock { $0[profile] = (now, list) }
    }
}
