import Foundation
import Model

/// Which clubs' seasons are over, kept in the vault: a `token_revoked` answer with reason
/// `season_ended` marks the tenant (`season_ended:<tenant>`), and its enrollments are not
/// called again. The one place that spells the vault key.
struct KantineKoningSeasons: Sendable {
    let vault: any CredentialVault
    let profile: String

    static func key(tenant: String) -> String { "season_ended:\(tenant)" }

    func isOver(tenant: String) async -> Bool {
        await vault.value(profile: profile, backend: KantineKoningClient.backend, name: Self.key(tenant: tenant)) != nil
    }

    /// Remembers that `tenant`'s season ended (best effort: a vault that cannot write means
    /// the tenant is asked again next time, which answers the same refusal).
    func markOver(tenant: String) async {
        try? await vault.setValue(
            "1", profile: profile, backend: KantineKoningClient.backend, name: Self.key(tenant: tenant))
    }
}
