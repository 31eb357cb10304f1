import Foundation
import Model

/// Tickedify: a cookie session from the persistent login link `daygate connect tickedify` keeps
/// in the vault, or from email + `wachtwoord` when the config gives a password.
public struct TickedifySettings: BackendSettings, Hashable {
    public static let backend = "tickedify"
    /// A section that loads, for the suites that cover every backend (`BackendSettings.sample`).
    public static let sample = BackendSettingsSample(
        yaml: """
            base_url: http://127.0.0.1:9100
            email: anna@example.org
            password: tickedify-password-1
            """,
        secrets: ["tickedify-password-1"])

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
    /// The longest `session_keep_warm` allowed.
    public static let maximumSessionKeepWarm: Double = 3600
    /// `session_keep_warm`: for how long after the last planning call the session is kept proven
    /// by a `GET /api/auth/me` just before `session_trust` runs out, so that the first planning
    /// call after a pause needs no check of its own (one round trip less). At most one check
    /// per `session_trust` while it lasts (about 10 for the default 5 minutes and 30 s); 0 turns
    /// it off. 0…1 h, default 5 min.
    public var sessionKeepWarm: ConfigDuration

    public init(
        endpoint: BackendEndpoint, email: String, password: Secret? = nil, sessionTrust: ConfigDuration = .seconds(30),
        sessionKeepWarm: ConfigDuration = .seconds(300)
    ) {
        self.endpoint = endpoint
        self.email = email
        self.password = password
        self.sessionTrust = sessionTrust
        self.sessionKeepWarm = sessionKeepWarm
    }

    enum CodingKeys: String, CodingKey {
        case email, password
        case sessionTrust = "session_trust"
        case sessionKeepWarm = "session_keep_warm"
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
        self.sessionKeepWarm =
            try container.decodeIfPresent(ConfigDuration.self, forKey: .sessionKeepWarm) ?? .seconds(300)
        guard sessionKeepWarm.seconds <= Self.maximumSessionKeepWarm else {
            throw DecodingError.dataCorruptedError(
                forKey: .sessionKeepWarm, in: container,
                debugDescription: "must be between 0 and 3600s (1h): how long after the last planning call the "
                    + "session is kept proven (0 turns it off)"
            )
        }
    }

    public var endpoints: [BackendEndpoint] { [endpoint] }
}
