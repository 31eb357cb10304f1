import Foundation

/// Tickedify: a cookie session from email + `wachtwoord`.
public struct TickedifySettings: Sendable, Hashable, Codable {
    /// The longest `session_trust` allowed.
    public static let maximumSessionTrust: Double = 300

    public var endpoint: BackendEndpoint
    /// Matched case-sensitively by the server.
    public var email: String
    public var password: String
    /// `session_trust`: how long a session Tickedify just proved is used on a planning route
    /// without checking it again (`GET /api/auth/me`); 0 checks before every such call. The
    /// risk: a session the server forgets inside it (an administrator wiping sessions) costs
    /// one planning call, which crashes the server. 0…300 s, default 30 s.
    public var sessionTrust: ConfigDuration

    public init(
        endpoint: BackendEndpoint, email: String, password: String, sessionTrust: ConfigDuration = .seconds(30)
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
        self.password = try container.decode(String.self, forKey: .password)
        self.sessionTrust = try container.decodeIfPresent(ConfigDuration.self, forKey: .sessionTrust) ?? .seconds(30)
        guard sessionTrust.seconds <= Self.maximumSessionTrust else {
            throw DecodingError.dataCorruptedError(
                forKey: .sessionTrust, in: container,
                debugDescription: "must be between 0 and 300s (5m): how long a session Tickedify proved is used "
                    + "without a new check (0 checks before every planning call)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try endpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(email, forKey: .email)
        try container.encode(password, forKey: .password)
        try container.encode(sessionTrust, forKey: .sessionTrust)
    }
}

/// Kantine Koning: one opaque token per enrollment (tenant + teams + role).
public struct KantineKoningSettings: Sendable, Hashable, Codable {
    public struct Enrollment: Sendable, Hashable, Codable {
        public var tenant: String
        public var role: String
        public var token: String
        public var label: String

        public init(tenant: String, role: String, token: String, label: String) {
            self.tenant = tenant
            self.role = role
            self.token = token
            self.label = label
        }

        enum CodingKeys: String, CodingKey { case tenant, role, token, label }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.tenant = try container.decode(String.self, forKey: .tenant)
            self.role = try container.decode(String.self, forKey: .role)
            self.token = try container.decode(String.self, forKey: .token)
            self.label = try container.decodeIfPresent(String.self, forKey: .label) ?? "\(tenant) \(role)"
            guard role == "manager" || role == "member" else {
                throw DecodingError.dataCorruptedError(
                    forKey: .role, in: container, debugDescription: "expected manager or member")
            }
            guard !token.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .token, in: container, debugDescription: "the enrollment token is empty")
            }
        }
    }

    public var endpoint: BackendEndpoint
    public var enrollments: [Enrollment]

    public init(endpoint: BackendEndpoint, enrollments: [Enrollment]) {
        self.endpoint = endpoint
        self.enrollments = enrollments
    }

    enum CodingKeys: String, CodingKey { case enrollments }

    public init(from decoder: any Decoder) throws {
        self.endpoint = try BackendEndpoint(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.enrollments = try container.decode([Enrollment].self, forKey: .enrollments)
        guard !enrollments.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .enrollments, in: container, debugDescription: "at least one enrollment is needed")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try endpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(enrollments, forKey: .enrollments)
    }
}

/// FitIQ: `X-API-Key` on every call plus a Bearer JWT from email/password or a refresh token.
public struct FitIQSettings: Sendable, Hashable, Codable {
    public var endpoint: BackendEndpoint
    public var apiKey: String
    public var email: String?
    public var password: String?
    /// Used when there is no password; rotated on every refresh (kept in the vault).
    public var refreshToken: String?

    public init(
        endpoint: BackendEndpoint, apiKey: String, email: String? = nil, password: String? = nil,
        refreshToken: String? = nil
    ) {
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.email = email
        self.password = password
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey {
        case apiKey = "api_key"
        case email, password
        case refreshToken = "refresh_token"
    }

    public init(from decoder: any Decoder) throws {
        self.endpoint = try BackendEndpoint(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.apiKey = try container.decode(String.self, forKey: .apiKey)
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.password = try container.decodeIfPresent(String.self, forKey: .password)
        self.refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        guard (email != nil && password != nil) || refreshToken != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .email, in: container, debugDescription: "give email and password, or refresh_token"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try endpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(apiKey, forKey: .apiKey)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(password, forKey: .password)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
    }
}

/// PRSNL: Bearer JWT from email/password (rotating refresh), or a static token.
public struct PRSNLSettings: Sendable, Hashable, Codable {
    public var endpoint: BackendEndpoint
    public var email: String?
    public var password: String?
    /// A long-lived access token used as is (no refresh).
    public var token: String?

    public init(endpoint: BackendEndpoint, email: String? = nil, password: String? = nil, token: String? = nil) {
        self.endpoint = endpoint
        self.email = email
        self.password = password
        self.token = token
    }

    enum CodingKeys: String, CodingKey { case email, password, token }

    public init(from decoder: any Decoder) throws {
        self.endpoint = try BackendEndpoint(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.password = try container.decodeIfPresent(String.self, forKey: .password)
        self.token = try container.decodeIfPresent(String.self, forKey: .token)
        guard (email != nil && password != nil) || token != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .email, in: container, debugDescription: "give email and password, or token")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try endpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(password, forKey: .password)
        try container.encodeIfPresent(token, forKey: .token)
    }
}
