import Model

extension TickedifyAddTaskWrite {
    /// `POST /v1/tasks` in /openapi.json.
    public var documentation: WriteDocumentation {
        WriteDocumentation(
            operationID: "createTask", summary: "Add a task to the Tickedify inbox.",
            description:
                "The title is trimmed. Adds are serialised per Tickedify account (its server rewrites the whole inbox on "
                + "each add, so concurrent adds would lose tasks) and are never retried. The cached inbox list and the task counts "
                + "are dropped.",
            backend: "Tickedify", body: TickedifySchemas.newTask,
            success: .init(201, "The task is in the inbox.", schema: TickedifySchemas.taskCreated),
            badRequest:
                "title missing, not a string, empty after trimming, longer than 500 characters or with control characters; "
                + "or an unknown field",
            forbidden:
                "`upstream_access_expired`: the Tickedify account's trial or beta has ended (it logs in but has no "
                + "access); nothing was written", links: [.id("CompleteTask", to: "completeTask", from: "/task/id")])
    }
}
