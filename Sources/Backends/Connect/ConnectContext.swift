import Foundation
import Model

/// Everything a connect flow works with: the profile as the config has it, the vault of the
/// state directory, the HTTP client and the person (or the flags of a script).
public struct ConnectContext: Sendable {
    public var profileName: String
    public var profile: ProfileConfig
    public var vault: any CredentialVault
    public var http: UpstreamHTTP
    public var prompt: any ConnectPrompt
    public var now: @Sendable () -> Date

    public init(
        profileName: String, profile: ProfileConfig, vault: any CredentialVault, http: UpstreamHTTP,
        prompt: any ConnectPrompt, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.profileName = profileName
        self.profile = profile
        self.vault = vault
        self.http = http
        self.prompt = prompt
        self.now = now
    }

    /// The source the flow's calls are counted under.
    public func source(_ backend: String) -> UpstreamSource {
        UpstreamSource(profile: profileName, backend: backend, scope: "connect")
    }

    /// The profile's section of `Settings`, or an error that says how to add one.
    public func settings<Settings: BackendSettings>(_ type: Settings.Type) throws -> Settings {
        guard let settings = profile[Settings.self] else {
            throw ConnectError(
                "profile \(profileName) has no \(Settings.backend) section; add one to the config "
                    + "(`daygate init --backend \(Settings.backend)` writes a starter) and run this again")
        }
        return settings
    }
}
