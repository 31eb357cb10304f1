import Foundation
import Model

/// Tickedify: a cookie session from the persistent login link `daygate connect tickedify` keeps
/// in the vault, or from email + `wachtwoord` when the config gives a password.
public struct TickedifySettings: BackendSettings, Hashable {
    public static let backend = "tickedify"

    /// The longest `session_trust` allowed.
    public static let maximumSessionTrust: Double = 300

    public var endpoint: BackendEndpoint
    /// Matched case-sensitively by the server.
    public var email: String
    /// Optional: without it the gateway uses the persistent login link kept by
    /// `daygate connect tickedify`.
    public var password: Secret?
    /// `session_trust`: how long a session Tickedify just proved is used on a planning route
    /// without checking it again (`GET /api/auth/me`); 0 checks before every such call. The
    /// risk: a session the server forgets inside it (an administrator wiping sessions) costs
    /// one planning call, which crashes the server. 0…300 s, default 30 s.
    public var sessionTrust: ConfigDuration

    public init(
        endpoint: BackendEndpoint, email: String, password: Secret? = nil, sessionTrust: ConfigDuration = .seconds(30)
    ) {
        self.endpoint = endpoint
        self.email = email
        self.password = password
        self.sessionTrust = sessionTrust
    }

    enum CodingKeys: String, CodingKey {
        case email, password
        case sessionTrust = "session_trust"
    }

    public init(from decoder: any Decoder) throws {
        self.endpoint = try BackendEndpoint(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.email = try container.decode(String.self, forKey: .email)
        self.password = try container.decodeIfPresent(Secret.self, forKey: .password)
        self.sessionTrust = try container.decodeIfPresent(ConfigDuration.self, forKey: .sessionTrust) ?? .seconds(30)
        guard sessionTrust.seconds <= Self.maximumSessionTrust else {
            throw DecodingError.dataCorruptedError(
                forKey: .sessionTrust, in: container,
                debugDescription: "must be between 0 and 300s (5m): how long a session Tickedify proved is used "
                    + "without a new check (0 checks before every planning call)"
            )
        }
    }

    public var endpoints: [BackendEndpoint] { [endpoint] }

    public func encode(to encoder: any Encoder) throws {
        try endpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(email, forKey: .email)
        try container.encodeIfPresent(password, forKey: .password)
        try container.encode(sessionTrust, forKey: .sessionTrust)
    }
}
