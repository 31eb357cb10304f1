import OpenAPIKit

extension LeaderboardEntry {
    /// `LeaderboardEntry` in /openapi.json.
    public static let schemaComponent = SchemaComponent(
        "LeaderboardEntry", uses: [Dienst.teamSchemaComponent],
        schema: .closedObject(
            [
                "rank": .integer,
                "team": Dienst.teamSchemaComponent.reference,
                "points": .integer,
                "total_hours": .number,
                "recent_change": .integer,
                "position_change": .integer,
                "highlighted": .boolean,
            ], description: "One team's place on a club's leaderboard."))
}
