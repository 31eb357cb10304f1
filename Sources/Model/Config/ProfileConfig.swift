/// One household member's backend settings and credentials. A backend left out is not
/// configured for this profile and is absent from its answers.
public struct ProfileConfig: Sendable, Hashable, Codable {
    /// 8alls needs no credentials, only where it lives.
    public var eightalls: BackendEndpoint?

    public init(eightalls: BackendEndpoint? = nil) {
        self.eightalls = eightalls
    }

    /// Names of the backends this profile has settings for.
    public var configuredBackends: [String] {
        var names: [String] = []
        if eightalls != nil { names.append("eightalls") }
        return names
    }
}
