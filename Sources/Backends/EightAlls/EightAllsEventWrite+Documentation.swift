import Model

extension EightAllsEventWrite {
    /// `POST /v1/events`, `PUT /v1/events/{id}` and `DELETE /v1/events/{id}` in /openapi.json.
    public var documentation: WriteDocumentation {
        switch kind {
        case .create:
            WriteDocumentation(
                operationID: "createEvent", summary: "Create an 8alls calendar event.",
                description:
                    "title, start and end are required; times need an offset (they are sent upstream in UTC) and end must be "
                    + "after start. The cached event lists of the local days the event covers are dropped.",
                backend: "8alls", body: EightAllsSchemas.eventCreate,
                success: .init(
                    201, "The event as 8alls stored it, times in the gateway's timezone.",
                    schema: EightAllsSchemas.eventAnswer),
                badRequest:
                    "a required field missing, a time without an offset, end not after start, a value of the wrong type, "
                    + "too long or not one of the allowed values, a control character in a text field (description "
                    + "takes line breaks and tabs); or an unknown field",
                links: [
                    .id("UpdateEvent", to: "updateEvent", from: "/event/id"),
                    .id("DeleteEvent", to: "deleteEvent", from: "/event/id"),
                ])
        case .update:
            WriteDocumentation(
                operationID: "updateEvent", summary: "Change an 8alls event (partial update).",
                description:
                    "Only the fields given change; null clears description, location, type or color. The current event is "
                    + "read first: the merged end must be after the merged start, and the cached event lists of the days it covered "
                    + "before and after are dropped. Not covered by Idempotency-Key (sending the same fields again changes nothing).",
                backend: "8alls", parameters: [EightAllsSchemas.eventID], body: EightAllsSchemas.eventUpdate,
                success: .init(200, "The event as it is now.", schema: EightAllsSchemas.eventAnswer),
                badRequest:
                    "a time without an offset, end not after start, a value of the wrong type, too long or not one of the "
                    + "allowed values, a control character in a text field (description takes line breaks and tabs), or "
                    + "title/status null; or an unknown field",
                notFound: "`not_found`: there is no 8alls event with this id.",
                links: [.id("DeleteEvent", to: "deleteEvent", from: "/event/id")])
        case .delete:
            WriteDocumentation(
                operationID: "deleteEvent", summary: "Delete an 8alls event.",
                description:
                    "The event is read first (to know its days), then deleted; the cached event lists of its days are dropped. "
                    + "No body and no Content-Type needed.",
                backend: "8alls", parameters: [EightAllsSchemas.eventID],
                success: .init(200, "The event is gone.", schema: EightAllsSchemas.eventDeleted),
                badRequest: "an id longer than 200 characters",
                notFound: "`not_found`: there is no 8alls event with this id (also when it was already deleted).")
        }
    }
}
