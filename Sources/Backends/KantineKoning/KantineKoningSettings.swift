import Foundation
import Model

/// Kantine Koning: one opaque token per enrollment (tenant + teams + role).
public struct KantineKoningSettings: BackendSettings, Hashable {
    public static let backend = "kantinekoning"
    /// A section that loads, for the suites that cover every backend (`BackendSettings.sample`).
    public static let sample = BackendSettingsSample(
        yaml: """
            base_url: http://127.0.0.1:9102
            enrollments:
              - tenant: club
                role: member
                token: kantine-token-123
            """,
        secrets: ["kantine-token-123"])

    public struct Enrollment: Sendable, Hashable, Codable {
        public var tenant: String
        public var role: String
        public var token: Secret
        public var label: String

        public init(tenant: String, role: String, token: Secret, label: String) {
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
            self.token = try container.decode(Secret.self, forKey: .token)
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
        // Without enrollments here the profile uses those `daygate connect kantinekoning` kept.
        self.enrollments = try container.decodeIfPresent([Enrollment].self, forKey: .enrollments) ?? []
    }

    public var endpoints: [BackendEndpoint] { [endpoint] }
}
