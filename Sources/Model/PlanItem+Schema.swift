import OpenAPIKit

extension PlanItem {
    /// `PlanItem` in /openapi.json: every field is always written (explicit `null`s).
    public static let schemaComponent = SchemaComponent(
        "PlanItem",
        schema: .closedObject(
            [
                "id": .string,
                "task_id": .string(nullable: true),
                "title": .string,
                "hour": .integer,
                "position": .integer,
                "kind": .enumeration(["task", "blocked", "break"]),
                "duration_minutes": .integer(nullable: true),
                "project_id": .string(nullable: true),
                "context_id": .string(nullable: true),
            ], description: "One slot of Tickedify's daily plan."))
}
