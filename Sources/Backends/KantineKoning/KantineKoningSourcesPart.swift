import Foundation
import Model
import OpenAPIKit

/// Kantine Koning's part of `/v1/sources`: each enrollment (label, club, role), whether its
/// club's season ended, whether its token was refused (`invalid`: Kantine Koning's code and
/// the reason; it is not called until its token changes), and its own health (its calls are
/// made with its own token).
public struct KantineKoningSourcesPart: SourcesPart {
    struct Enrollment: Encodable, Sendable {
        var label: String
        var tenant: String
        var role: String
        var seasonEnded: Bool
        @Nullable var invalid: Invalid?

        struct Invalid: Encodable, Sendable {
            var code: String
            var reason: String
            var since: String
        }

        enum CodingKeys: String, CodingKey {
            case label, tenant, role, invalid
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
        guard let configured = input.profile.kantinekoning else { return ["enrollments": .array([])] }
        let settings = await KantineKoningConnectedEnrollments.merged(
            configured, vault: input.vault, profile: input.profileName)
        for enrollment in settings.enrollments {
            let invalid = await seasons.invalid(enrollment)
            enrollments.append(
                ScopedSourceHealth(
                    Enrollment(
                        label: enrollment.label, tenant: enrollment.tenant, role: enrollment.role,
                        seasonEnded: await seasons.isOver(tenant: enrollment.tenant, settings: settings),
                        invalid: invalid.map {
                            .init(code: $0.code, reason: $0.message, since: LenientDate.format($0.at, in: .gmt))
                        }),
                    health: input.health(enrollment.label)))
        }
        return ["enrollments": (try? JSONValue(encoding: enrollments)) ?? .array([])]
    }
}
