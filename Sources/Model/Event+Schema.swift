import OpenAPIKit

extension Event {
    /// `Event` in /openapi.json: every field is always written (explicit `null`s).
    public static let schemaComponent = SchemaComponent(
        "Event",
        schema: .closedObject(
            [
                "id": .string,
                "title": .string,
                "description": .string(nullable: true),
                "start": .string(format: .dateTime),
                "end": .string(format: .dateTime),
                "all_day": .boolean,
                "location": .string(nullable: true),
                "status": .string(description: "8alls' status: confirmed, tentative or cancelled."),
                "type": .string(nullable: true, description: "8alls' event_type (meeting, personal, …)."),
                "color": .string(nullable: true),
                "tags": .array(items: .string),
                "calendar": .string(
                    nullable: true,
                    description: "The subscribed (ICS) calendar the event comes from; null for 8alls' own."),
            ],
            description:
                "A calendar event from 8alls or a subscribed ICS calendar; times carry the configured timezone's offset."
        ))
}
