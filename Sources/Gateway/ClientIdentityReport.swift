import Model

/// `GET /v1/me`: who the asking key is, for a client that sets itself up (Home Assistant's
/// integration): the gateway's own id (stable across restarts and addresses), its version and
/// timezone; the key's name, profile and scopes; and, when the key may read the household, the
/// household's name and members. No secret: a key learns only what it may already read.
struct ClientIdentityReport: Encodable, Sendable {
    struct Gateway: Encodable, Sendable {
        var id: String
        var version: String
        var timezone: String
    }

    struct Client: Encodable, Sendable {
        var name: String
    }

    struct Household: Encodable, Sendable {
        var name: String?
        var members: [Member]
    }

    struct Member: Encodable, Sendable {
        var id: String
        var name: String
        var color: String
        var profile: String
    }

    var gateway: Gateway
    /// Null on a gateway without client keys (loopback: the machine's one user).
    var client: Client?
    var profile: String
    var scopes: [String]
    /// Null without the household scope or without a household in the config.
    var household: Household?

    enum CodingKeys: String, CodingKey {
        case gateway, client, profile, scopes, household
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(gateway, forKey: .gateway)
        try container.encode(client, forKey: .client)
        try container.encode(profile, forKey: .profile)
        try container.encode(scopes, forKey: .scopes)
        try container.encode(household, forKey: .household)
    }

    init(
        gatewayID: String, config: DaygateConfig, client: String?, profile: String, scopes: Set<ClientScope>
    ) {
        gateway = Gateway(id: gatewayID, version: DaygateVersion.current, timezone: config.timezone)
        self.client = client.map { Client(name: $0) }
        self.profile = profile
        self.scopes = scopes.sorted().map(\.rawValue)
        household =
            scopes.contains(.household)
            ? config.household.map { household in
                Household(
                    name: household.name,
                    members: household.members.map {
                        Member(id: $0.id, name: $0.name, color: $0.color, profile: $0.profile)
                    })
            } : nil
    }
}
