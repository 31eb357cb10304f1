import Model
import OpenAPIKit

/// Kantine Koning's schemas in /openapi.json: its operations' bodies, its writes, its summary
/// keys and its enrollments in /v1/sources.
public enum KantineKoningSchemas {
    /// Body of `kantinekoning.diensten`.
    public static let dienstList = SchemaComponent(
        "DienstList", uses: [Dienst.schemaComponent],
        schema: .array(
            description: "Body of kantinekoning.diensten: future ascending, then past descending.",
            items: Dienst.schemaComponent.reference))

    /// Body of `kantinekoning.leaderboard`.
    public static let leaderboard = SchemaComponent(
        "Leaderboard", uses: [LeaderboardEntry.schemaComponent],
        schema: .array(
            description: "Body of kantinekoning.leaderboard.", items: LeaderboardEntry.schemaComponent.reference))

    /// `{id}` of `/v1/diensten/{id}/volunteers`.
    public static let dienstID = ParameterComponent.path(
        "DienstID", name: "id", description: "The dienst's id (as in /v1/diensten).", schema: .text(min: 1, max: 100))

    /// `?tenant=` of the volunteer writes: the dienst's club, when its id is seen at more than one.
    public static let dienstTenant = ParameterComponent.query(
        "DienstTenant", name: "tenant",
        description:
            "The dienst's club (`tenant` in /v1/diensten). Needed only when the id is seen at more than one club "
            + "(each club numbers its own diensten); without it such an id is a 409.",
        schema: .text(min: 1, max: 100))

    /// `{name}` of `/v1/diensten/{id}/volunteers/{name}`.
    public static let volunteerName = ParameterComponent.path(
        "VolunteerName", name: "name",
        description:
            "The volunteer's name as it is on the dienst (percent-encoded; compared exactly, as in the club app). Names added here have "
            + "at most \(KantineKoningVolunteers.maximumNameLength) characters; a longer one typed in by the club itself can be "
            + "removed too.",
        schema: .text(min: 1, max: 100))

    /// Body of `POST /v1/diensten/{id}/volunteers`.
    public static let newVolunteer = SchemaComponent(
        "NewVolunteer",
        schema: .closedObject(
            [
                "name": .text(
                    min: 1, max: KantineKoningVolunteers.maximumNameLength, pattern: "\\S",
                    description:
                        "Trimmed; as the club's app allows: 1 to 15 characters, no control characters, once per dienst."
                )
            ], description: "Body of POST /v1/diensten/{id}/volunteers."))

    /// Answer of both volunteer writes.
    public static let dienstAnswer = SchemaComponent(
        "DienstAnswer", uses: [Dienst.schemaComponent],
        schema: .closedObject(
            ["dienst": Dienst.schemaComponent.reference],
            description:
                "Answer of POST /v1/diensten/{id}/volunteers and DELETE /v1/diensten/{id}/volunteers/{name}."))

    /// One item of the summary's `diensten`.
    public static let summaryDienst = SchemaComponent(
        "SummaryDienst",
        schema: .closedObject([
            "start": .string(format: .dateTime),
            "end": .string(format: .dateTime),
            "club": .string,
            "team": .string(nullable: true),
            "role": .string,
            "open_spots": .integer,
            "location": .string(nullable: true),
        ]))

    /// One enrollment in /v1/sources: who it is and its own health.
    public static let enrollmentStatus: SchemaComponent = {
        var properties = SourceHealth.schemaProperties
        properties["label"] = .string
        properties["tenant"] = .string
        properties["role"] = .string
        properties["season_ended"] = .boolean
        properties["invalid"] = .object(
            nullable: true,
            description:
                "Set when Kantine Koning refused this enrollment's token (not a season end): it is not called until its token changes.",
            properties: JSONSchema.sortedProperties([
                "code": .string(description: "Kantine Koning's code, e.g. invalid_token or device_not_found."),
                "reason": .string, "since": .string(format: .dateTime),
            ]), additionalProperties: .init(false))
        return SchemaComponent(
            "EnrollmentStatus", uses: [SourceHealth.lastErrorSchemaComponent],
            schema: .closedObject(
                properties, description: "One Kantine Koning enrollment (each has its own token and health)."))
    }()
}
