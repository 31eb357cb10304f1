import Foundation
import Model

/// FitIQ: `X-API-Key` on every call plus a Bearer JWT from email/password or a refresh token.
public struct FitIQSettings: BackendSettings, Hashable {
    public static let backend = "fitiq"
    /// A section that loads, for the suites that cover every backend (`BackendSettings.sample`).
    public static let sample = BackendSettingsSample(
        yaml: """
            base_url: http://127.0.0.1:9103
            api_key: fitiq-api-key-1
            email: anna@example.org
            password: fitiq-password-1
            refresh_token: fitiq-refresh-1
            """,
        secrets: ["fitiq-api-key-1", "fitiq-password-1", "fitiq-refresh-1"])

    public var endpoint: BackendEndpoint
    public var apiKey: Secret
    public var email: String?
    public var password: Secret?
    /// Used when there is no password; rotated on every refresh (kept in the vault).
    public var refreshToken: Secret?

    public init(
        endpoint: BackendEndpoint, apiKey: Secret, email: String? = nil, password: Secret? = nil,
        refreshToken: Secret? = nil
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
        self.apiKey = try container.decode(Secret.self, forKey: .apiKey)
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.password = try container.decodeIfPresent(Secret.self, forKey: .password)
        self.refreshToken = try container.decodeIfPresent(Secret.self, forKey: .refreshToken)
        // With the e-mail alone the login is the one `daygate connect fitiq` kept in the vault.
        guard email != nil || refreshToken != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .email, in: container,
                debugDescription: "give email (then run `daygate connect fitiq`), or refresh_token"
            )
        }
    }

    public var endpoints: [BackendEndpoint] { [endpoint] }
}
