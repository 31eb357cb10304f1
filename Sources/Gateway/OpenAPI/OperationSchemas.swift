import Foundation
import Model

/// Small JSON Schema (Draft 2020-12, the dialect of OpenAPI 3.1) builders over `JSONValue`.
enum JSONSchema {
    /// Accepts anything: what a route gets for an operation without a schema.
    static let any: JSONValue = .object([:])
    static let null: JSONValue = .object(["type": .string("null")])

    static func type(
        _ name: String, format: String? = nil, description: String? = nil, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var schema = extra
        schema["type"] = .string(name)
        if let format { schema["format"] = .string(format) }
        return described(schema, description)
    }

    /// `"type": [name, "null"]`: a field the encoder writes as an explicit `null` when absent.
    static func nullable(_ name: String, format: String? = nil, description: String? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": .array([.string(name), .string("null")])]
        if let format { schema["format"] = .string(format) }
        return described(schema, description)
    }

    static func enumeration(_ values: [String], nullable: Bool = false, description: String? = nil) -> JSONValue {
        let schema: [String: JSONValue] = [
            "type": nullable ? .array([.string("string"), .string("null")]) : .string("string"),
            "enum": .array(values.map(JSONValue.string) + (nullable ? [.null] : [])),
        ]
        return described(schema, description)
    }

    static func array(_ items: JSONValue, description: String? = nil) -> JSONValue {
        let schema: [String: JSONValue] = ["type": .string("array"), "items": items]
        return described(schema, description)
    }

    /// `schema` with its description, when there is one.
    static func described(_ schema: [String: JSONValue], _ description: String?) -> JSONValue {
        var schema = schema
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    static func ref(_ component: String) -> JSONValue {
        .object(["$ref": .string("#/components/schemas/\(component)")])
    }

    static func nullableRef(_ component: String, description: String? = nil) -> JSONValue {
        let schema: [String: JSONValue] = ["anyOf": .array([ref(component), null])]
        return described(schema, description)
    }

    /// A closed object. `required` nil means every property is always written.
    static func object(
        _ properties: [String: JSONValue], required: [String]? = nil, description: String? = nil
    ) -> JSONValue {
        let schema: [String: JSONValue] = [
            "type": .string("object"),
            "properties": .object(properties),
            "required": .array((required ?? properties.keys.sorted()).sorted().map(JSONValue.string)),
            "additionalProperties": .bool(false),
        ]
        return described(schema, description)
    }

    /// An object whose keys are free (names of sections, of checks) and whose values share a schema.
    static func map(_ values: JSONValue, description: String? = nil) -> JSONValue {
        let schema: [String: JSONValue] = ["type": .string("object"), "additionalProperties": values]
        return described(schema, description)
    }

    static func described(_ schema: JSONValue, _ description: String) -> JSONValue {
        guard case .object(var fields) = schema else { return schema }
        fields["description"] = .string(description)
        return .object(fields)
    }
}

/// The JSON Schema of every operation's cached body (what a route section carries), and of the
/// Model types they are made of, as `components/schemas` of /openapi.json.
///
/// Derived from the Model types' `CodingKeys` and `encode(to:)`: a type with a hand-written
/// `encode(to:)` writes every optional as an explicit `null` (so the field is required and
/// `"type": [T, "null"]`); a synthesized encoder leaves nil optionals out (not required).
/// Keep this table in step with `OperationRegistry.standard` (a test checks every operation has
/// a body here); a route naming an operation missing here documents its section as any JSON.
public enum OperationSchemas {
    /// Operation name → the component holding its body's schema.
    public static let bodyComponents: [String: String] = [
        "eightalls.events": "EventList",
        "ics.events": "EventList",
        "ics.calendars": "CalendarList",
        "tickedify.daily_plan": "DailyPlan",
        "tickedify.list": "TaskList",
        "tickedify.counts": "TaskCounts",
        "tickedify.completed": "CompletedTaskList",
        "kantinekoning.diensten": "DienstList",
        "kantinekoning.leaderboard": "Leaderboard",
        "fitiq.nutrition": "NutritionSummary",
        "fitiq.food_logs": "FoodLogList",
        "fitiq.workouts": "WorkoutList",
        "fitiq.sleep": "SleepSessionList",
        "prsnl.timeline": "KnowledgeTimeline",
        "prsnl.search": "KnowledgeSearchResults",
        "prsnl.tags": "TagList",
        "prsnl.item": "KnowledgeItem",
    ]

    /// The operations this table describes.
    public static var operationNames: [String] { bodyComponents.keys.sorted() }

    public static func hasSchema(for operation: String) -> Bool {
        bodyComponents[operation] != nil
    }

    /// A `$ref` to the operation's body schema, or `{}` (any JSON) for an operation not in the table.
    public static func body(for operation: String) -> JSONValue {
        bodyComponents[operation].map(JSONSchema.ref) ?? JSONSchema.any
    }

    /// Every component: the Model types, the per-operation bodies, and the shared section metadata.
    public static var components: [String: JSONValue] {
        var all = modelTypes
        for (name, schema) in bodies { all[name] = schema }
        return all
    }

    // MARK: - Model types

    static var modelTypes: [String: JSONValue] {
        typealias S = JSONSchema
        let string = S.type("string")
        let nullableString = S.nullable("string")
        let dateTime = S.type("string", format: "date-time")
        let nullableDateTime = S.nullable("string", format: "date-time")
        let strings = S.array(string)

        // completed_at is written only when set (encodeIfPresent): absent on open tasks, and
        // always present (never null) on tickedify.completed, which keeps only tasks that have it.
        var taskItem: [String: JSONValue] = [
            "id": string,
            "title": string,
            "list": S.type("string", description: "The list it is on (inbox, acties, opvolgen, …)."),
            "priority": S.enumeration(["high", "medium", "low"], nullable: true),
            "appears_on": S.nullable("string", format: "date", description: "The local day it appears on."),
            "duration_minutes": S.nullable("integer"),
            "project_id": nullableString,
            "context_id": nullableString,
            "recurrence": nullableString,
            "created_at": nullableDateTime,
        ]
        let taskKeys = taskItem.keys.sorted()
        taskItem["completed_at"] = S.type(
            "string", format: "date-time", description: "When it was completed; only completed tasks carry it.")
        let taskItemSchema = S.object(
            taskItem, required: taskKeys, description: "A task from one of Tickedify's lists.")
        let completedTaskSchema = S.object(
            taskItem, required: taskKeys + ["completed_at"],
            description: "A completed Tickedify task: a TaskItem with completed_at."
        )

        let meal = S.object([
            "calories": S.nullable("integer", description: "Null when FitIQ reports only how many items were logged."),
            "items": S.type("integer"),
        ])
        let passedThrough = "Passed through from FitIQ as sent (normally a number)."

        return [
            "Event": S.object(
                [
                    "id": string,
                    "title": string,
                    "description": nullableString,
                    "start": dateTime,
                    "end": dateTime,
                    "all_day": S.type("boolean"),
                    "location": nullableString,
                    "status": S.type("string", description: "8alls' status: confirmed, tentative or cancelled."),
                    "type": S.nullable("string", description: "8alls' event_type (meeting, personal, …)."),
                    "color": nullableString,
                    "tags": strings,
                    "calendar": S.nullable(
                        "string",
                        description: "The subscribed (ICS) calendar the event comes from; null for 8alls' own."),
                ],
                description:
                    "A calendar event from 8alls or a subscribed ICS calendar; times carry the configured timezone's offset."
            ),
            "CalendarState": S.object(
                [
                    "name": string,
                    "color": nullableString,
                    "source": S.type(
                        "string", description: "Where the feed comes from: the scheme and host only, or file."),
                    "auth": S.enumeration(["none", "basic", "bearer"]),
                    "refresh_seconds": S.type("integer"),
                    "state": S.enumeration(["ok", "stale", "bad_feed", "error"]),
                    "checked_at": S.nullable("string", format: "date-time"),
                    "changed_at": S.nullable("string", format: "date-time"),
                    "bytes": S.nullable("integer"),
                    "events": S.nullable("integer", description: "VEVENTs in the feed (before recurrence)."),
                    "error": S.nullableRef("ErrorDetail"),
                ], description: "One subscribed ICS calendar and its state."),
            "PlanItem": S.object(
                [
                    "id": string,
                    "task_id": nullableString,
                    "title": string,
                    "hour": S.type("integer"),
                    "position": S.type("integer"),
                    "kind": S.enumeration(["task", "blocked", "break"]),
                    "duration_minutes": S.nullable("integer"),
                    "project_id": nullableString,
                    "context_id": nullableString,
                ], description: "One slot of Tickedify's daily plan."),
            "TaskItem": taskItemSchema,
            "CompletedTaskItem": completedTaskSchema,
            "TaskCounts": S.object(
                [
                    "inbox": S.type("integer"),
                    "acties": S.type("integer"),
                    "opvolgen": S.type("integer"),
                    "projecten": S.type("integer"),
                    "uitgesteld": S.type("integer"),
                ], description: "Tickedify's sidebar counts."),
            "DienstTeam": S.object(
                [
                    "id": string,
                    "code": nullableString,
                    "name": string,
                ], description: "A club team."),
            "DienstType": S.object(
                [
                    "name": string,
                    "icon": string,
                ], required: ["name"], description: "The kind of shift; icon is left out when the club has none."),
            "Dienst": S.object(
                [
                    "id": string,
                    "tenant": S.type("string", description: "The club."),
                    "team": S.nullableRef("DienstTeam", description: "Null for an open dienst no team has claimed."),
                    "start": dateTime,
                    "end": dateTime,
                    "location": nullableString,
                    "type": S.nullableRef("DienstType"),
                    "status": string,
                    "volunteers": strings,
                    "volunteers_needed": S.type("integer"),
                    "open_spots": S.type("integer", extra: ["minimum": .number(0)]),
                    "role": S.enumeration(
                        ["manager", "member"], description: "The strongest role among the enrollments that see it."),
                    "offered_for_transfer": S.type("boolean"),
                    "updated_at": nullableDateTime,
                ], description: "A canteen shift at a club, merged over every enrollment that sees it."),
            "LeaderboardEntry": S.object(
                [
                    "rank": S.type("integer"),
                    "team": S.ref("DienstTeam"),
                    "points": S.type("integer"),
                    "total_hours": S.type("number"),
                    "recent_change": S.type("integer"),
                    "position_change": S.type("integer"),
                    "highlighted": S.type("boolean"),
                ], description: "One team's place on a club's leaderboard."),
            "NutritionMeal": meal,
            "NutritionMeals": S.object([
                "breakfast": S.ref("NutritionMeal"),
                "lunch": S.ref("NutritionMeal"),
                "dinner": S.ref("NutritionMeal"),
                "snack": S.ref("NutritionMeal"),
            ]),
            "NutritionSummary": S.object(
                [
                    "date": S.type("string", format: "date"),
                    "calories": S.type("integer"),
                    "protein_g": S.type("number"),
                    "carbs_g": S.type("number"),
                    "fat_g": S.type("number"),
                    "goal_calories": S.nullable("integer"),
                    "remaining_calories": S.nullable("integer"),
                    "meals": S.ref("NutritionMeals"),
                ], description: "FitIQ's day: totals against the goal, per meal. Body of fitiq.nutrition."),
            "FoodLog": S.object(
                [
                    "id": string,
                    "meal_type": nullableString,
                    "food_id": nullableString,
                    "servings": S.nullable("number", description: passedThrough),
                    "logged_at": nullableDateTime,
                    "notes": nullableString,
                ], description: "One food log entry from FitIQ."),
            "Workout": S.object(
                [
                    "id": string,
                    "activity_type": nullableString,
                    "title": nullableString,
                    "started_at": nullableDateTime,
                    "ended_at": nullableDateTime,
                    "duration_minutes": S.nullable("number", description: passedThrough),
                    "calories_burned": S.nullable("number", description: passedThrough),
                    "distance_meters": S.nullable("number", description: passedThrough),
                ], description: "A workout from FitIQ."),
            "SleepSession": S.object(
                [
                    "id": string,
                    "start": nullableDateTime,
                    "end": nullableDateTime,
                    "total_sleep_minutes": S.nullable("number", description: passedThrough),
                    "time_in_bed_minutes": S.nullable("number", description: passedThrough),
                    "efficiency_percent": S.nullable("number", description: passedThrough),
                ], description: "A sleep session from FitIQ."),
            "KnowledgeItem": S.object(
                [
                    "id": string,
                    "title": nullableString,
                    "url": nullableString,
                    "summary": nullableString,
                    "type": nullableString,
                    "tags": strings,
                    "created_at": nullableDateTime,
                    "permalink": nullableString,
                ], description: "A saved link or note from PRSNL. Body of prsnl.item."),
            "Tag": S.object(
                [
                    "name": string,
                    "count": S.type("integer"),
                ], description: "A PRSNL tag and how many items carry it."),
            "ErrorDetail": S.object(
                [
                    "code": S.type(
                        "string", description: "Stable, machine-readable (bad_parameter, upstream_timeout, …)."),
                    "message": S.type("string", description: "For people; never carries a secret."),
                ], description: "What went wrong."),
            "Error": S.object(
                [
                    "error": S.ref("ErrorDetail")
                ], description: "The body of every error answer."),
            "SectionIssue": S.object(
                [
                    "scope": S.type("string", description: "What the issue is about, e.g. an enrollment's label."),
                    "code": string,
                    "message": string,
                ], description: "A part of a section that failed while the rest answered."),
            "SectionReport": S.object(
                [
                    "status": S.enumeration(["ok", "stale", "partial", "error", "timeout"]),
                    "cache": S.enumeration(["hit", "miss", "stale", "refreshed", "none"]),
                    "age_seconds": S.type(
                        "integer", description: "Age of the data served; left out when there is none."),
                    "backend": string,
                    "duration_ms": S.type("number"),
                    "error": S.ref("ErrorDetail"),
                    "issues": S.array(S.ref("SectionIssue")),
                ], required: ["status", "cache", "backend", "duration_ms"],
                description: "Where a section's data came from."),
        ]
    }

    // MARK: - Operation bodies

    static var bodies: [String: JSONValue] {
        typealias S = JSONSchema
        return [
            "EventList": S.array(
                S.ref("Event"), description: "Body of eightalls.events: the events overlapping the days, by start."),
            "CalendarList": S.array(
                S.ref("CalendarState"), description: "Body of ics.calendars: the subscribed calendars."),
            "DailyPlan": S.array(
                S.ref("PlanItem"), description: "Body of tickedify.daily_plan: the day's slots by hour and position."),
            "TaskList": S.array(S.ref("TaskItem"), description: "Body of tickedify.list: one list's open tasks."),
            "CompletedTaskList": S.array(
                S.ref("CompletedTaskItem"), description: "Body of tickedify.completed: completed tasks."),
            "DienstList": S.array(
                S.ref("Dienst"), description: "Body of kantinekoning.diensten: future ascending, then past descending."),
            "Leaderboard": S.array(S.ref("LeaderboardEntry"), description: "Body of kantinekoning.leaderboard."),
            "FoodLogList": S.array(
                S.ref("FoodLog"), description: "Body of fitiq.food_logs: the food logged on the day."),
            "WorkoutList": S.array(S.ref("Workout"), description: "Body of fitiq.workouts."),
            "SleepSessionList": S.array(S.ref("SleepSession"), description: "Body of fitiq.sleep."),
            "KnowledgeTimeline": S.array(
                S.ref("KnowledgeItem"), description: "Body of prsnl.timeline: the newest items first."),
            "KnowledgeSearchResults": S.array(
                S.ref("KnowledgeItem"), description: "Body of prsnl.search: the items matching the query."),
            "TagList": S.array(S.ref("Tag"), description: "Body of prsnl.tags."),
        ]
    }
}
