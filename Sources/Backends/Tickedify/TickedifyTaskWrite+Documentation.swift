import Model

extension TickedifyTaskWrite {
    /// The task and plan writes in /openapi.json.
    public var documentation: WriteDocumentation {
        let session =
            "Sent once, never retried, with a Tickedify session proven within the last `session_trust` or checked just "
            + "before (without one the real server hangs or crashes on this call), one at a time per account with the other "
            + "Tickedify writes."
        let forbidden =
            "`upstream_access_expired`: the Tickedify account's trial or beta has ended (it logs in but has no access); "
            + "nothing was written"
        switch kind {
        case .complete:
            return WriteDocumentation(
                operationID: "completeTask", summary: "Tick off a Tickedify task.",
                description:
                    "Tickedify archives the task and removes it from every day's plan. A recurring task first gets its next "
                    + "occurrence, made as Tickedify's web app makes it (Tickedify's own completion makes none): its date computed "
                    + "from the task's pattern (`next_task_date`), then `POST /api/taak/recurring` (`next_task_id`); a pattern that "
                    + "cannot be computed is a 422 `recurrence_not_computable` and nothing is sent. No body, or `{}`. \(session) "
                    + "A timeout leaves the outcome unknown (504): "
                    + "read /v1/tasks or /v1/plan before trying again. The cached task lists, counts, day plans and completed lists "
                    + "are dropped.",
                backend: "Tickedify", parameters: [TickedifySchemas.taskID], body: TickedifySchemas.noFields,
                success: .init(200, "The task is completed.", schema: TickedifySchemas.taskCompleted),
                badRequest:
                    "an id with a slash, white space or control characters, or longer than 200; or a body field",
                forbidden: forbidden,
                notFound:
                    "`not_found`: the task is not open in Tickedify — it was completed already (also by an earlier request "
                    + "with this id) or deleted.",
                conflict: "`already_completed`: Tickedify holds the task as completed already.",
                links: [.id("ReopenTask", to: "reopenTask", from: "/task/id")])
        case .reopen:
            return WriteDocumentation(
                operationID: "reopenTask", summary: "Reopen a completed Tickedify task.",
                description:
                    "The task comes back into the inbox (whatever list it was on), no longer recurring; its place in the day "
                    + "plans is not restored, and a next occurrence made when it was completed stays. No body, or `{}`. "
                    + "\(session) The cached inbox, counts and completed lists are dropped.",
                backend: "Tickedify", parameters: [TickedifySchemas.taskID], body: TickedifySchemas.noFields,
                success: .init(200, "The task is open again, in the inbox.", schema: TickedifySchemas.taskReopened),
                badRequest:
                    "an id with a slash, white space or control characters, or longer than 200; or a body field",
                forbidden: forbidden,
                notFound: "`not_found`: no completed task with this id (never completed, reopened already, or deleted)."
            )
        case .replan:
            return WriteDocumentation(
                operationID: "movePlanItem", summary: "Move a slot of the Tickedify day plan to another hour.",
                description:
                    "The slot stays on its day and moves to `hour`, at `position` within that hour (absent or null: at the end). "
                    + "Tickedify shifts the other slots of the old and the new hour. \(session) Every cached day plan is dropped "
                    + "(the item's day is not known without reading them). Not covered by Idempotency-Key (moving to the same "
                    + "place again changes nothing).",
                backend: "Tickedify", parameters: [TickedifySchemas.planItemID], body: TickedifySchemas.planMove,
                success: .init(200, "The slot is at its new hour.", schema: TickedifySchemas.planItemMoved),
                badRequest:
                    "hour missing or not a whole number from 0 to 23, position not a whole number of at least 0 (or null); an "
                    + "id with a slash, white space or control characters; or an unknown field",
                forbidden: forbidden, notFound: "`not_found`: there is no plan item with this id.")
        case .remove:
            return WriteDocumentation(
                operationID: "removePlanItem", summary: "Remove a slot from the Tickedify day plan.",
                description:
                    "The slot leaves its day (a planned task stays open in its list; Tickedify does not close the gap in the "
                    + "hour's positions). No body. Tickedify itself deletes any account's slot by id, so daygate first reads "
                    + "this profile's plan of `date` (default: the household's today) and sends the delete only for a slot "
                    + "in it. \(session) Every cached day plan is dropped.",
                backend: "Tickedify", parameters: [TickedifySchemas.planItemID, TickedifySchemas.planDay],
                success: .init(204, "The slot is gone."),
                badRequest:
                    "an id with a slash, white space or control characters, or longer than 200; a date that is not "
                    + "YYYY-MM-DD; or another query parameter",
                forbidden: forbidden,
                notFound:
                    "`not_found`: the profile's plan of that day has no slot with this id (removed already, on another "
                    + "day, or another account's); nothing was sent.")
        }
    }
}
