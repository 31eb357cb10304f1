import Aggregation
import Backends
import Foundation
import Model
import OpenAPIKit

/// The household's answers: a household route's (`HouseholdAnswer`) and `/v1/household/summary`'s
/// (`HouseholdSummaryService`).
extension OpenAPIDocument {
    /// The marks a combined list's item gets: its member, or its members when shared.
    static let householdItemMarks: [String: JSONSchema] = [
        "member": .string(description: "The member whose item it is (their id), unless shared."),
        "members": .array(
            description: "Shared: every member who has it (a calendar they all subscribe to).",
            items: .string),
        "shared": .boolean(description: "Present (true) when several members have the item."),
    ]

    static let householdAbout = JSONSchema.closedObject(
        [
            "name": .string(description: "household.name"),
            "night": .string(
                description: "household.wall.night: local hours when the wall dims (HH:MM-HH:MM).",
                pattern: "^[0-2][0-9]:[0-5][0-9]-[0-2][0-9]:[0-5][0-9]$"),
        ], required: [], description: "The household as configured (each key only when set).")

    static let memberIdentity: [String: JSONSchema] = [
        "id": .string(description: "The member's id (household.members[].id; the profile's name unless given)."),
        "profile": .string(description: "The member's profile."),
        "name": .string(description: "The member's display name."),
        "color": .string(description: "The member's colour.", pattern: "^#[0-9a-f]{6}$"),
    ]

    /// A household route's answer: the parameters and combined lists at the top; each member's
    /// own answer to the route under `members`.
    static func householdAnswerSchema(_ route: Route) -> JSONSchema {
        let combine = Set(route.household?.combine ?? [])
        var (properties, required) = parameterProperties(route)
        let (sections, reports) = sectionProperties(route)
        var member = memberIdentity
        member["complete"] = .boolean(description: "Every section of the member's is ok.")
        member["stale"] = .boolean(description: "Some section of the member's serves data past its freshness.")
        member["age_seconds"] = .integer(minimum: (0, exclusive: false))
        member["sections"] = .closedObject(
            reports, required: [],
            description:
                "Per section the member has (configured backends; opt-in sections only when shared): status, cache, "
                + "age, backend, duration.")
        member["error"] = .fragment(
            .init(description: "Only when the member's only section's backend says \"not found\": the error."))
        for (name, schema) in sections where !combine.contains(name) {
            member[name] = schema
        }
        for name in combine {
            properties[name] = .orNull(
                .array(
                    items: .object(
                        description:
                            "An item of \(name) as its section gives it (\(route.sections.filter { $0.name == name || $0.mergeInto == name }.map(\.operation.name).joined(separator: ", "))), marked with its member(s).",
                        properties: JSONSchema.sortedProperties(householdItemMarks, required: []),
                        additionalProperties: .init(true))),
                description:
                    "Every member's \(name) together, ordered by start; an item several members have appears once, "
                    + "shared. Null when no member has the list.")
        }
        properties["household"] = householdAbout
        properties["timezone"] = .string(
            description: "The configured IANA timezone: what the day and its hours are in.")
        properties["members"] = .array(
            description: "Every member, in the configured order.",
            items: .closedObject(
                member, required: ["id", "profile", "name", "color", "complete", "stale", "age_seconds", "sections"]))
        properties["complete"] = .boolean(description: "Every member's answer is complete.")
        properties["stale"] = .boolean(description: "Some member's answer is stale.")
        properties["age_seconds"] = .integer(
            description: "Age of the oldest data in the answer.", minimum: (0, exclusive: false))
        required += ["household", "timezone", "members", "complete", "stale", "age_seconds"] + combine.sorted()
        return .closedObject(
            properties, required: required,
            description:
                "The household's answer of \(route.path): 200, or 502/504 when no member's answer has data; 404 "
                + "`no_household` without a household in the config.")
    }

    /// `/v1/household/summary`: each member's summary under their id.
    static var householdSummary: SchemaComponent {
        var member =
            summary.schema.objectContext.map {
                Dictionary(uniqueKeysWithValues: $0.properties.map { ($0.key, $0.value) })
            } ?? [:]
        member["date"] = nil
        member["timezone"] = nil
        member["name"] = memberIdentity["name"]
        member["color"] = memberIdentity["color"]
        return SchemaComponent(
            "HouseholdSummary", uses: [summary],
            schema: .closedObject(
                [
                    "date": .string(format: .date),
                    "timezone": .string(description: "The configured IANA timezone."),
                    "household": householdAbout,
                    "members": .map(
                        .closedObject(member),
                        description:
                            "Every member's summary by their id (`value_json.members.anna.plan_open`), as /v1/summary's "
                            + "without date and timezone; a personal section (the day's meals) only when the member "
                            + "shares it, else its keys are null."),
                    "complete": .boolean, "stale": .boolean, "age_seconds": .integer(minimum: (0, exclusive: false)),
                ], description: "Per-person values for home automation."))
    }

    static var householdSummaryOperation: OpenAPI.Operation {
        gatewayOperation(
            "getHouseholdSummary", summary: "Every household member's flat values for home automation.",
            description:
                "Needs the `household` scope when the gateway has client keys. Always 200 when a household is configured "
                + "(nulls and each section's error when a backend is down); 404 `no_household` without one.",
            parameters: [.reference(.component(named: "IfNoneMatch")), .reference(.component(named: "CacheControl"))],
            responses: [
                .status(code: 200): jsonResponse(
                    "The household's summary.", householdSummary.reference, headers: cachingHeaders),
                .status(code: 304): .b(notModified),
                .status(code: 400): responseRef("BadRequest"),
                .status(code: 404): .b(
                    OpenAPI.Response(
                        description: "`no_household`: the config names no household.", headers: requestIDHeader,
                        content: jsonContent(ErrorBody.schemaComponent.reference))),
            ])
    }
}
