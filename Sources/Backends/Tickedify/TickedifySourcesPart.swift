import Foundation
import Model
import OpenAPIKit

/// Tickedify's part of `/v1/sources`: whether the account has access (`TickedifyAccess`, as
/// Tickedify last said; `has_access` null before it said anything). An ended trial or beta
/// shows here with Tickedify's message while the sections fail with `upstream_access_expired`.
public struct TickedifySourcesPart: SourcesPart {
    struct Access: Encodable, Sendable {
        @Nullable var hasAccess: Bool?
        @Nullable var expiryType: String?
        @Nullable var message: String?
        @Nullable var checkedAt: String?

        enum CodingKeys: String, CodingKey {
            case hasAccess = "has_access"
            case expiryType = "expiry_type"
            case message
            case checkedAt = "checked_at"
        }
    }

    public static let accessSchema = SchemaComponent(
        "TickedifyAccess",
        schema: .closedObject(
            [
                "has_access": .boolean(
                    nullable: true, description: "False when the account's trial or beta ended; null: not known yet."),
                "expiry_type": .string(nullable: true, description: "trial or beta, when access ended."),
                "message": .string(nullable: true, description: "Tickedify's words, when access ended."),
                "checked_at": .string(format: .dateTime, nullable: true),
            ], description: "Whether the Tickedify account may use Tickedify, as Tickedify last said."))

    public var detailSchemas: [String: JSONSchema] {
        ["access": Self.accessSchema.reference]
    }

    public var detailComponents: [SchemaComponent] { [Self.accessSchema] }

    public func details(_ input: SourcesInput) async -> [String: JSONValue] {
        guard let settings = input.profile.tickedify else { return [:] }
        let access = await TickedifySession.storedAccess(vault: input.vault, scope: TickedifyClient.scope(settings))
        let shown = Access(
            hasAccess: access?.hasAccess, expiryType: access?.expiryType, message: access?.message,
            checkedAt: access.map { LenientDate.format($0.checkedAt, in: .gmt) })
        return ["access": (try? JSONValue(encoding: shown)) ?? .null]
    }
}
