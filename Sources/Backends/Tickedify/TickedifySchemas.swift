import Model
import OpenAPIKit

/// Tickedify's schemas in /openapi.json: its operations' bodies, its write, its summary keys.
public enum TickedifySchemas {
    /// Body of `tickedify.daily_plan`.
    public static let dailyPlan = SchemaComponent(
        "DailyPlan", uses: [PlanItem.schemaComponent],
        schema: .array(
            description: "Body of tickedify.daily_plan: the day's slots by hour and position.",
            items: PlanItem.schemaComponent.reference))

    /// Body of `tickedify.list`.
    public static let taskList = SchemaComponent(
        "TaskList", uses: [TaskItem.schemaComponent],
        schema: .array(
            description: "Body of tickedify.list: one list's open tasks.", items: TaskItem.schemaComponent.reference))

    /// Body of `tickedify.completed`.
    public static let completedTaskList = SchemaComponent(
        "CompletedTaskList", uses: [TaskItem.completedSchemaComponent],
        schema: .array(
            description: "Body of tickedify.completed: completed tasks.",
            items: TaskItem.completedSchemaComponent.reference))

    /// Body of `POST /v1/tasks`.
    public static let newTask = SchemaComponent(
        "NewTask",
        schema: .closedObject(
            [
                "title": .text(
                    min: 1, max: TickedifyInbox.maximumTitleLength, pattern: "\\S",
                    description: "Trimmed; not empty, no control characters.")
            ], description: "Body of POST /v1/tasks."))

    /// Answer of `POST /v1/tasks`.
    public static let taskCreated = SchemaComponent(
        "TaskCreated",
        schema: .closedObject(
            [
                "task": .closedObject([
                    "id": .string(description: "Tickedify's id of the new task."),
                    "title": .string(description: "The title as stored (trimmed)."),
                    "list": .enumeration(["inbox"]),
                ])
            ], description: "Answer of POST /v1/tasks."))

    /// One item of the summary's `plan`.
    public static let summaryPlanItem = SchemaComponent(
        "SummaryPlanItem",
        schema: .closedObject([
            "title": .string,
            "hour": .integer,
            "kind": .enumeration(["task", "blocked", "break"]),
            "duration_minutes": .integer(nullable: true),
        ]))
}
