import OpenAPIKit

extension Dienst {
    /// `DienstTeam` in /openapi.json (`Dienst.Team`).
    public static let teamSchemaComponent = SchemaComponent(
        "DienstTeam",
        schema: .closedObject(
            ["id": .string, "code": .string(nullable: true), "name": .string], description: "A club team."))

    /// `DienstType` in /openapi.json (`Dienst.Kind`): `icon` is left out when the club has none.
    public static let typeSchemaComponent = SchemaComponent(
        "DienstType",
        schema: .closedObject(
            ["name": .string, "icon": .string], required: ["name"],
            description: "The kind of shift; icon is left out when the club has none."))

    /// `Dienst` in /openapi.json: every field is always written (explicit `null`s).
    public static let schemaComponent = SchemaComponent(
        "Dienst", uses: [teamSchemaComponent, typeSchemaComponent],
        schema: .closedObject(
            [
                "id": .string,
                "tenant": .string(description: "The club."),
                "team": .orNull(
                    teamSchemaComponent.reference, description: "Null for an open dienst no team has claimed."),
                "start": .string(format: .dateTime),
                "end": .string(format: .dateTime),
                "location": .string(nullable: true),
                "type": .orNull(typeSchemaComponent.reference),
                "status": .string,
                "volunteers": .array(items: .string),
                "volunteers_needed": .integer,
                "open_spots": .integer(minimum: (0, exclusive: false)),
                "role": .enumeration(
                    ["manager", "member"], description: "The strongest role among the enrollments that see it."),
                "offered_for_transfer": .boolean,
                "updated_at": .string(format: .dateTime, nullable: true),
            ], description: "A canteen shift at a club, merged over every enrollment that sees it."))
}
