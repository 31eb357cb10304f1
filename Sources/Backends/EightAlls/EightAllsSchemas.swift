import Model
import OpenAPIKit

/// 8alls' schemas in /openapi.json: its operation's body and its writes.
public enum EightAllsSchemas {
    /// Body of `eightalls.events`.
    public static let eventList = SchemaComponent(
        "EventList", uses: [Event.schemaComponent],
        schema: .array(
            description: "Body of eightalls.events: the events overlapping the days, by start.",
            items: Event.schemaComponent.reference))

    /// `{id}` of `/v1/events/{id}`.
    public static let eventID = ParameterComponent.path(
        "EventID", name: "id", description: "The 8alls event's id.", schema: .text(min: 1, max: 200))

    /// The fields of an 8alls event a client may send (`EventInput`).
    static var eventInputProperties: [String: JSONSchema] {
        let offsetTime = JSONSchema.text(
            max: 40, format: .dateTime,
            description:
                "ISO-8601 with an offset or Z, e.g. 2026-11-23T10:00:00+01:00; a time without an offset is refused.")
        return [
            "title": .text(min: 1, max: 255, pattern: "\\S", description: "Not empty or only spaces."),
            "start": offsetTime,
            "end": offsetTime,
            "description": .text(max: 5000, nullable: true, description: "null clears it."),
            "location": .text(max: 255, nullable: true, description: "null clears it."),
            "all_day": .boolean,
            "status": .enumeration(EventInput.statuses),
            "type": .text(
                max: 50, nullable: true, description: "8alls' event_type (meeting, personal, …); null clears it."),
            "color": .text(max: 20, nullable: true, description: "null clears it."),
            "tags": .array(
                description: "Replaces the event's tags.", maxItems: 20, items: .text(min: 1, max: 50)),
        ]
    }

    /// Body of `POST /v1/events`.
    public static let eventCreate = SchemaComponent(
        "EventCreate",
        schema: .closedObject(
            eventInputProperties, required: ["title", "start", "end"],
            description: "Body of POST /v1/events: a new 8alls event."))

    /// Body of `PUT /v1/events/{id}`.
    public static let eventUpdate = SchemaComponent(
        "EventUpdate",
        schema: .closedObject(
            eventInputProperties, required: [],
            description: "Body of PUT /v1/events/{id}: only the fields to change (title and status cannot be null)."))

    /// Answer of `POST /v1/events` and `PUT /v1/events/{id}`.
    public static let eventAnswer = SchemaComponent(
        "EventAnswer", uses: [Event.schemaComponent],
        schema: .closedObject(
            ["event": Event.schemaComponent.reference],
            description: "Answer of POST /v1/events and PUT /v1/events/{id}."))

    /// Answer of `DELETE /v1/events/{id}`.
    public static let eventDeleted = SchemaComponent(
        "EventDeleted",
        schema: .closedObject(
            ["deleted": .closedObject(["id": .string])], description: "Answer of DELETE /v1/events/{id}."))
}
