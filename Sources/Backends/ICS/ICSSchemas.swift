import Model
import OpenAPIKit

/// The calendar subscriptions' schemas in /openapi.json: their operations' bodies and their
/// calendars in /v1/sources.
public enum ICSSchemas {
    /// Body of `ics.events`.
    public static let subscribedEventList = SchemaComponent(
        "SubscribedEventList", uses: [Event.schemaComponent],
        schema: .array(
            description:
                "Body of ics.events: the subscribed calendars' events overlapping the days, by start; each names its calendar.",
            items: Event.schemaComponent.reference))

    /// One calendar in `ics.calendars`.
    public static let calendarState = SchemaComponent(
        "CalendarState", uses: [ErrorDetail.schemaComponent],
        schema: .closedObject(
            [
                "name": .string,
                "color": .string(nullable: true),
                "source": .string(description: "Where the feed comes from: the scheme and host only, or file."),
                "auth": .enumeration(["none", "basic", "bearer"]),
                "refresh_seconds": .integer,
                "state": .enumeration(
                    ["ok", "stale", "bad_feed", "error"],
                    description: "stale: the last check failed and the kept copy serves."),
                "checked_at": .string(format: .dateTime, nullable: true),
                "changed_at": .string(format: .dateTime, nullable: true),
                "bytes": .integer(nullable: true),
                "events": .integer(nullable: true, description: "VEVENTs in the feed (before recurrence)."),
                "error": .orNull(ErrorDetail.schemaComponent.reference),
            ], description: "One subscribed ICS calendar and its state."))

    /// Body of `ics.calendars`.
    public static let calendarList = SchemaComponent(
        "CalendarList", uses: [calendarState],
        schema: .array(
            description: "Body of ics.calendars: the subscribed calendars.", items: calendarState.reference))

    /// One calendar in /v1/sources: where from, its colour and its own health.
    public static let calendarSource: SchemaComponent = {
        var properties = SourceHealth.schemaProperties
        properties["name"] = .string
        properties["source"] = .string
        properties["color"] = .string(nullable: true)
        return SchemaComponent(
            "CalendarSource", uses: [SourceHealth.lastErrorSchemaComponent],
            schema: .closedObject(
                properties, description: "One subscribed ICS calendar (each feed is fetched on its own)."))
    }()
}
