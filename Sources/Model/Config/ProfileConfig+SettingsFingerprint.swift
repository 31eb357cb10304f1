import Foundation

extension ProfileConfig {
    /// A fingerprint of everything the profile's section of `backend` says — its address, its
    /// account, and any setting that shapes an answer (a calendar's colour, a location) — as the
    /// config writes it, secrets included (hashed, never kept). Part of every cache key of the
    /// backend's operations, so an answer cached under other settings is never served: not after
    /// a reload (which also drops those entries) and not after a restart with an edited config.
    /// Derived from the settings' encoding, so a new backend's settings are covered without code.
    /// `CredentialFingerprint.none` when the profile does not configure the backend.
    public func settingsFingerprint(of backend: String) -> String {
        guard let settings = settings(of: backend) else { return CredentialFingerprint.none }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.userInfo[.revealSecrets] = true
        guard let data = try? encoder.encode(settings) else { return CredentialFingerprint.none }
        return CredentialFingerprint.of(["settings", String(decoding: data, as: UTF8.self)])
    }
}
