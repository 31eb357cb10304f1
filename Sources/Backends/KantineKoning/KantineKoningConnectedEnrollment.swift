import Foundation
import Model

/// The enrollments `daygate connect kantinekoning` made, kept in the vault as one JSON record
/// (`enrollments`) per profile. The gateway's Kantine Koning calls use them next to the
/// config's `enrollments`; `/v1/sources` lists them.
public struct KantineKoningConnectedEnrollment: Codable, Sendable, Equatable {
    public struct Team: Codable, Sendable, Equatable {
        public var id: String
        public var code: String?
        public var naam: String?

        public init(id: String, code: String? = nil, naam: String? = nil) {
            self.id = id
            self.code = code
            self.naam = naam
        }

        /// What a person calls it: the code, else the name, else the id.
        public var display: String { code ?? naam ?? id }
    }

    /// A local id (8 hex characters) for `--remove`.
    public var id: String
    public var tenant: String
    public var tenantName: String
    public var role: String
    public var teams: [Team]
    public var token: String
    public var email: String?
    public var enrolledAt: Date

    public init(
        id: String, tenant: String, tenantName: String, role: String, teams: [Team], token: String, email: String?,
        enrolledAt: Date
    ) {
        self.id = id
        self.tenant = tenant
        self.tenantName = tenantName
        self.role = role
        self.teams = teams
        self.token = token
        self.email = email
        self.enrolledAt = enrolledAt
    }

    enum CodingKeys: String, CodingKey {
        case id, tenant, role, teams, token, email
        case tenantName = "tenant_name"
        case enrolledAt = "enrolled_at"
    }

    /// `VV Wilhelmus (member JO11-3, JO13-1)`.
    public var label: String {
        "\(tenantName) (\(role) \(teams.map(\.display).joined(separator: ", ")))"
    }

    /// As the gateway's calls use it.
    public var enrollment: KantineKoningSettings.Enrollment {
        KantineKoningSettings.Enrollment(tenant: tenant, role: role, token: Secret(token), label: label)
    }
}
