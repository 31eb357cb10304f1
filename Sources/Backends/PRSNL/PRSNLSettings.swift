import Foundation
import Model

/// PRSNL: Bearer JWT from email/password (rotating refresh), or a static token.
public struct PRSNLSettings: BackendSettings, Hashable {
    public static let backend = "prsnl"
    /// A section that loads, for the suites that cover every backend (`BackendSettings.sample`).
    public static let sample = BackendSettingsSample(
        yaml: """
            base_url: http://127.0.0.1:9104
            token: prsnl-static-token-1
            """,
        secrets: ["prsnl-static-token-1"])

    public var endpoint: BackendEndpoint
    public var email: String?
    public var password: Secret?
    /// A long-lived access token used as is (no refresh).
    public var token: Secret?

    public init(endpoint: BackendEndpoint, email: String? = nil, password: Secret? = nil, token: Secret? = nil) {
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
        self.password = try container.decodeIfPresent(Secret.self, forKey: .password)
        self.token = try container.decodeIfPresent(Secret.self, forKey: .token)
        // With the e-mail alone the login is the one `daygate connect prsnl` kept in the vault.
        guard email != nil || token != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .email, in: container,
                debugDescription: "give email (then run `daygate connect prsnl`), or token")
        }
    }

    public var endpoints: [BackendEndpoint] { [endpoint] }
}
