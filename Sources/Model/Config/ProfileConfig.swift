/// One household member's backend settings and credentials. A backend left out is not
/// configured for this profile and is absent from its answers.
public struct ProfileConfig: Sendable, Hashable, Codable {
    public var tickedify: TickedifySettings?
    /// 8alls needs no credentials, only where it lives.
    public var eightalls: BackendEndpoint?
    public var kantinekoning: KantineKoningSettings?
    public var fitiq: FitIQSettings?
    public var prsnl: PRSNLSettings?

    public init(
        tickedify: TickedifySettings? = nil, eightalls: BackendEndpoint? = nil,
        kantinekoning: KantineKoningSettings? = nil,
        fitiq: FitIQSettings? = nil, prsnl: PRSNLSettings? = nil
    ) {
        self.tickedify = tickedify
        self.eightalls = eightalls
        self.kantinekoning = kantinekoning
        self.fitiq = fitiq
        self.prsnl = prsnl
    }

    /// Every backend daygate knows, in the order answers list them.
    public static let backendNames = ["tickedify", "eightalls", "kantinekoning", "fitiq", "prsnl"]

    /// Where this profile's backends live.
    public var endpoints: [BackendEndpoint] {
        [tickedify?.endpoint, eightalls, kantinekoning?.endpoint, fitiq?.endpoint, prsnl?.endpoint].compactMap { $0 }
    }

    /// Names of the backends this profile has settings for.
    public var configuredBackends: [String] {
        var names: [String] = []
        if tickedify != nil { names.append("tickedify") }
        if eightalls != nil { names.append("eightalls") }
        if kantinekoning != nil { names.append("kantinekoning") }
        if fitiq != nil { names.append("fitiq") }
        if prsnl != nil { names.append("prsnl") }
        return names
    }
}
