import OpenAPIKit

extension TaskItem {
    /// The fields every task carries, always written (explicit `null`s).
    static let alwaysWritten: [String: JSONSchema] = [
        "id": .string,
        "title": .string,
        "list": .string(description: "The list it is on (inbox, acties, opvolgen, …)."),
        "priority": .enumeration(["high", "medium", "low"], nullable: true),
        "appears_on": .string(format: .date, nullable: true, description: "The local day it appears on."),
        "duration_minutes": .integer(nullable: true),
        "project_id": .string(nullable: true),
        "context_id": .string(nullable: true),
        "recurrence": .string(nullable: true),
        "created_at": .string(format: .dateTime, nullable: true),
    ]

    /// Every field: `completed_at` is written only when set (`encodeIfPresent`).
    static var allFields: [String: JSONSchema] {
        var fields = alwaysWritten
        fields["completed_at"] = .string(
            format: .dateTime, description: "When it was completed; only completed tasks carry it.")
        return fields
    }

    /// `TaskItem` in /openapi.json: an open task, without `completed_at`.
    public static let schemaComponent = SchemaComponent(
        "TaskItem",
        schema: .closedObject(
            allFields, required: Array(alwaysWritten.keys), description: "A task from one of Tickedify's lists."))

    /// `CompletedTaskItem` in /openapi.json: a task that always carries `completed_at`.
    public static let completedSchemaComponent = SchemaComponent(
        "CompletedTaskItem",
        schema: .closedObject(
            allFields, required: Array(alwaysWritten.keys) + ["completed_at"],
            description: "A completed Tickedify task: a TaskItem with completed_at."))
}
