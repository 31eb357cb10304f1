import Foundation
import Model
import OpenAPIKit

/// Kantine Koning's part of `/v1/sources`: each enrollment (label, club, role), whether its
/// club's season ended, and its own health (its calls are made with its own token).
public struct KantineKoningSourcesPart: SourcesPart {
    struct Enrollment: Encodable, Sendable {
        var label: String
        var tenant: String
        var role: String
        var seasonEnded: Bool

        enum CodingKeys: String, CodingKey {
            case label, tenant, role
            case seasonEnded = "season_ended"
        }
    }

    public var detailSchemas: [String: JSONSchema] {
        [
            "enrollments": .array(
                description: "Kantine Koning only.", items: KantineKoningSchemas.enrollmentStatus.reference)
        ]
    }

    public var detailComponents: [SchemaComponent] { [KantineKoningSchemas.enrollmentStatus] }

    public func details(_ input: SourcesInput) async -> [String: JSONValue] {
        let seasons = KantineKoningSeasons(vault: input.vault, profile: input.profileName)
        var enrollments: [ScopedSourceHealth<Enrollment>] = []
        let configured = input.profile.kantinekoning?.enrollments ?? []
        let connected = await KantineKoningConnectedEnrollments(vault: input.vault, profile: input.profileName).all()
        for enrollment in configured + connected.map(\.enrollment) {
            enrollments.append(
                ScopedSourceHealth(
                    Enrollment(
                        label: enrollment.label, tenant: enrollment.tenant, role: enrollment.role,
                        seasonEnded: await seasons.isOver(tenant: enrollment.tenant)),
                    health: input.health(enrollment.label)))
        }
        return ["enrollments": (try? JSONValue(encoding: enrollments)) ?? .array([])]
    }
}
