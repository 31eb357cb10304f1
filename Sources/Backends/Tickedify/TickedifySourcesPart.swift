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

    struct LoginLink: Encodable, Sendable {
        var state: String
        @Nullable var firstFailureAt: String?
        var failures: Int
        @Nullable var nextTryAt: String?

        enum CodingKeys: String, CodingKey {
            case state
            case firstFailureAt = "first_failure_at"
            case failures
            case nextTryAt = "next_try_at"
        }
    }

    public static let loginLinkSchema = SchemaComponent(
        "TickedifyLoginLink",
        schema: .closedObject(
            [
                "state": .string(
                    description:
                        "none: no link kept; reauth_suspected: Tickedify answered the link without a session (as for an unknown link, and when it cannot save one), the link is kept and tried again; reauth_required: it has failed for three days, connect again.",
                    allowedValues: ["none", "ok", "reauth_suspected", "reauth_required"]
                ),
                "first_failure_at": .string(
                    format: .dateTime, nullable: true, description: "When it first failed since it last worked."),
                "failures": .integer(description: "Failures in a row."),
                "next_try_at": .string(format: .dateTime, nullable: true, description: "When daygate tries it again."),
            ], description: "The persistent login link `daygate connect tickedify` kept."))

    public var detailSchemas: [String: JSONSchema] {
        ["access": Self.accessSchema.reference, "login_link": Self.loginLinkSchema.reference]
    }

    public var detailComponents: [SchemaComponent] { [Self.accessSchema, Self.loginLinkSchema] }

    public func details(_ input: SourcesInput) async -> [String: JSONValue] {
        guard let settings = input.profile.tickedify else { return [:] }
        let access = await TickedifySession.storedAccess(vault: input.vault, scope: TickedifyClient.scope(settings))
        let shown = Access(
            hasAccess: access?.hasAccess, expiryType: access?.expiryType, message: access?.message,
            checkedAt: access.map { LenientDate.format($0.checkedAt, in: .gmt) })
        let scope = TickedifyClient.scope(settings).description
        let link: LoginLink
        if await TickedifyPersistentLogin.stored(vault: input.vault, profile: scope, email: settings.email) == nil {
            link = LoginLink(state: "none", firstFailureAt: nil, failures: 0, nextTryAt: nil)
        } else {
            let health = await TickedifyPersistentLogin.health(vault: input.vault, profile: scope)
            link = LoginLink(
                state: health.state.rawValue,
                firstFailureAt: health.firstFailure.map { LenientDate.format($0, in: .gmt) },
                failures: health.failures,
                nextTryAt: health.nextTry(now: Date()).map { LenientDate.format($0, in: .gmt) })
        }
        return [
            "access": (try? JSONValue(encoding: shown)) ?? .null,
            "login_link": (try? JSONValue(encoding: link)) ?? .null,
        ]
    }
}
