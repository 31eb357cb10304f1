import Model
import OpenAPIKit

/// Tickedify's schemas in /openapi.json: its operations' bodies, its writes, its summary keys.
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

    /// The `{id}` of `/v1/tasks/{id}/complete` and `/v1/tasks/{id}/reopen`.
    public static let taskID = ParameterComponent.path(
        "TaskID", name: "id",
        description:
            "A Tickedify task's id: `task_id` of a /v1/plan item or `id` of a /v1/tasks task (no slash, white space or "
            + "control characters).",
        schema: .text(min: 1, max: 200, pattern: "^[^/\\s]+$"))

    /// The `{id}` of `/v1/plan/items/{id}`.
    public static let planItemID = ParameterComponent.path(
        "PlanItemID", name: "id",
        description:
            "A Tickedify plan item's id: `id` of a /v1/plan item (no slash, white space or control characters).",
        schema: .text(min: 1, max: 200, pattern: "^[^/\\s]+$"))

    /// The `?date=` of `DELETE /v1/plan/items/{id}`: the day whose plan holds the slot.
    public static let planDay = ParameterComponent.query(
        "PlanDay", name: "date",
        description:
            "The day whose plan holds the slot (YYYY-MM-DD, the household's zone); default: today. The slot is removed "
            + "only when this profile's plan of that day has it.",
        schema: .string(format: .date))

    /// The body of `POST /v1/tasks/{id}/complete` and `…/reopen`: none, or `{}`.
    public static let noFields = SchemaComponent(
        "NoFields",
        schema: .closedObject(
            [:], description: "No fields: the request may come without a body or with `{}` (Content-Type still JSON)."))

    /// Answer of `POST /v1/tasks/{id}/complete`.
    public static let taskCompleted = SchemaComponent(
        "TaskCompleted",
        schema: .closedObject(
            [
                "task": .closedObject([
                    "id": .string(description: "The task's id."),
                    "completed_at": .string(
                        format: .dateTime,
                        description: "When it was completed (UTC, milliseconds), as sent to Tickedify."),
                ]),
                "next_task_id": .string(
                    nullable: true,
                    description:
                        "The next occurrence of a recurring task (made before the completion, as Tickedify's web app does); null for a one-off task."
                ),
                "next_task_date": .string(
                    format: .date, nullable: true,
                    description: "The day of that next occurrence; null for a one-off task."
                ),
            ], description: "Answer of POST /v1/tasks/{id}/complete."))

    /// Answer of `POST /v1/tasks/{id}/reopen`.
    public static let taskReopened = SchemaComponent(
        "TaskReopened",
        schema: .closedObject(
            [
                "task": .closedObject([
                    "id": .string(description: "The task's id (the same as before)."),
                    "list": .enumeration(["inbox"], description: "Tickedify reopens every task into the inbox."),
                ])
            ], description: "Answer of POST /v1/tasks/{id}/reopen."))

    /// Body of `PUT /v1/plan/items/{id}`.
    public static let planMove = SchemaComponent(
        "PlanMove",
        schema: .closedObject(
            [
                "hour": .integer(maximum: (23, exclusive: false), minimum: (0, exclusive: false)),
                "position": .integer(
                    nullable: true,
                    description: "Place within the hour, 0 first; absent or null: at the end of the hour.",
                    minimum: (0, exclusive: false)),
            ], required: ["hour"], description: "Body of PUT /v1/plan/items/{id}: the slot's new hour on its day."))

    /// Answer of `PUT /v1/plan/items/{id}`.
    public static let planItemMoved = SchemaComponent(
        "PlanItemMoved",
        schema: .closedObject(
            [
                "plan_item": .closedObject([
                    "id": .string,
                    "hour": .integer(maximum: (23, exclusive: false), minimum: (0, exclusive: false)),
                    "position": .integer(
                        nullable: true, description: "As asked; null when the slot was put at the end of the hour."),
                ])
            ], description: "Answer of PUT /v1/plan/items/{id}."))

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
