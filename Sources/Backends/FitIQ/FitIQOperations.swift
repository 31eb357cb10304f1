import Foundation
import Model

/// Shared by the FitIQ operations.
protocol FitIQOperation: BackendOperation {}

extension FitIQOperation {
    public var backend: String { FitIQClient.backend }
    public func isConfigured(for profile: ProfileConfig) -> Bool { profile.fitiq != nil }
    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        profile.fitiq.map(FitIQClient.fingerprint) ?? CredentialFingerprint.none
    }
}

/// A FitIQ operation of one local day: `date`, default today; fresh for 5 minutes.
protocol FitIQDayOperation: FitIQOperation {}

extension FitIQDayOperation {
    public var defaultTTL: TimeInterval { 300 }
    public var arguments: [OperationArgument] { [OperationArgument("date", .date)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        ["date": arguments["date"] ?? .date(clock.today)]
    }
}

/// `fitiq.nutrition`: the day's totals against the goal (`date`, default today).
public struct FitIQNutritionOperation: FitIQDayOperation {
    public init() {}
    public var name: String { "fitiq.nutrition" }
    public var bodySchema: SchemaComponent { NutritionSummary.schemaComponent }

    /// The gateway totals the local day itself (`FitIQDayNutrition`): the food logged within it
    /// (from the logs of the UTC days it overlaps, each with its own values or its food's) and
    /// the meals logged within it (FitIQ's meal logs, which the FitIQ app logs and FitIQ's own
    /// day summary may or may not include: it is used for the calorie goal only, so no meal is
    /// counted twice). A food `GET /api/v1/foods/{id}` does not find is looked for among the
    /// user's own foods (`GET /api/v1/users/me/foods`); what is still unknown is named in an
    /// issue, as are meals FitIQ is still processing (the answer is then fresh for a few
    /// seconds only).
    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let date = arguments["date"]?.date ?? context.today
        let client = try FitIQClient.make(context)
        let window = FitIQDayWindow(day: date, zone: context.timeZone)
        async let summary = client.get("/api/v1/food-logs/summary", query: [("date", window.firstUTCDay.description)])
        async let meals = FitIQMealLog.meals(in: window, client: client)
        let logs = try await FitIQFoodLogsOperation.logs(in: window, client: client)
        let foods = try await FitIQFoodLogsOperation.foods(for: logs, context: context, client: client)
        let goal = FitIQDayNutrition.goal(inSummary: try await summary)
        let (dayMeals, truncated) = try await meals
        let day = try FitIQDayNutrition.summary(date: date, logs: logs, foods: foods, meals: dayMeals, goal: goal)
        return try OperationOutput(
            encoding: day.summary, issues: day.issues + (truncated.map { [$0] } ?? []),
            freshFor: FitIQMealLog.freshness(of: dayMeals))
    }
}

/// `fitiq.food_logs`: the food logged on a day, each log with its food's name and calories
/// (per serving × servings) from the food catalog (`FitIQFoodCatalog`: one call per food the
/// first time only) — what a dashboard lists to offer deleting one.
public struct FitIQFoodLogsOperation: FitIQDayOperation {
    public init() {}
    public var name: String { "fitiq.food_logs" }
    public var bodySchema: SchemaComponent { FitIQSchemas.foodLogList }

    /// The logs of the UTC days the local day overlaps, those logged within the local day.
    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let date = arguments["date"]?.date ?? context.today
        let window = FitIQDayWindow(day: date, zone: context.timeZone)
        let client = try FitIQClient.make(context)
        let rows = try await Self.logs(in: window, client: client)
        let foods = try await Self.foods(for: rows, context: context, client: client)
        return try OperationOutput(encoding: Self.answer(rows, foods: foods, zone: context.timeZone))
    }

    /// The foods of the logs `rows` that carry no values of their own: from the food catalog
    /// (`GET /api/v1/foods/{id}`, an API-key route that may know only FitIQ's library), and those
    /// it does not find from the user's own foods (`GET /api/v1/users/me/foods`, asked only then).
    static func foods(for rows: [JSONValue], context: OperationContext, client: FitIQClient) async throws
        -> [String: FitIQDayNutrition.Food]
    {
        let ids = FitIQDayNutrition.foodIDsToLookUp(rows)
        let catalog = FitIQFoodCatalog.shared(context.sessions, baseURL: client.settings.endpoint.baseURL)
        var foods = try await catalog.foods(ids, client: client)
        let missing = ids.subtracting(foods.keys)
        guard !missing.isEmpty else { return foods }
        let own = try await FitIQFoodCatalog.userFoods(client: client)
        // Kept by id like the library's, so the next day that logs them costs no call: only
        // the account that owns a food can log it, so no other profile's day reads it.
        await catalog.remember(own.filter { $0.id.map(missing.contains) ?? false })
        for food in own {
            if let id = food.id, missing.contains(id) { foods[id] = food }
        }
        return foods
    }

    /// The logs as the section answers them, each with its food's name and calories from `foods`.
    static func answer(_ rows: [JSONValue], foods: [String: FitIQDayNutrition.Food], zone: TimeZone) -> [JSONValue] {
        rows.compactMap { row in
            FitIQRecord.foodLog(
                row, zone: zone, food: LenientFields(row)?.string("food_id").flatMap { foods[$0.lowercased()] })
        }
    }

    /// FitIQ's FoodLogs logged within `window` (asked for by the UTC days it overlaps, the end one
    /// day further: FitIQ does not say whether its `end_date` is inclusive).
    static func logs(in window: FitIQDayWindow, client: FitIQClient) async throws -> [JSONValue] {
        let value = try await client.get(
            "/api/v1/food-logs",
            query: [
                ("start_date", window.firstUTCDay.description), ("end_date", window.queryEndDay.description),
            ])
        return rows(value, in: window)
    }

    /// The FoodLogs of a `/api/v1/food-logs` answer logged within `window`.
    static func rows(_ value: JSONValue, in window: FitIQDayWindow) -> [JSONValue] {
        (LenientList.items(in: value, keys: ["logs", "meal_logs", "data"]) ?? []).filter {
            window.contains(time: LenientFields($0)?.string("logged_at", "created_at"))
        }
    }
}

/// `fitiq.workouts`: workouts started in the local days `from`…`to`.
public struct FitIQWorkoutsOperation: FitIQOperation {
    public init() {}
    public var name: String { "fitiq.workouts" }
    public var bodySchema: SchemaComponent { FitIQSchemas.workoutList }
    public var defaultTTL: TimeInterval { 300 }
    public var arguments: [OperationArgument] { [OperationArgument("from", .date), OperationArgument("to", .date)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        try FitIQRecord.window(arguments, clock: clock)
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let window = FitIQRecord.dayWindow(arguments, clock: context.clock)
        let client = try FitIQClient.make(context)
        var paging = FitIQPaging()
        while let offset = paging.nextOffset {
            let value = try await client.get(
                "/api/v1/workouts/date-range",
                query: [
                    ("start_date", LenientDate.format(window.start, in: .gmt)),
                    ("end_date", LenientDate.format(window.end, in: .gmt)),
                    ("limit", String(paging.pageSize)), ("offset", String(offset)),
                ])
            let page = FitIQPaging.page(value, keys: ["workouts", "data"])
            paging.take(page.items, hasMore: page.hasMore)
        }
        return try OperationOutput(
            encoding: Self.workouts(paging.items, window: window, zone: context.timeZone),
            issues: paging.issue("workouts").map { [$0] } ?? [])
    }

    /// The workouts of the pages read that started within `window`.
    static func workouts(_ items: [JSONValue], window: FitIQDayWindow, zone: TimeZone) -> [JSONValue] {
        items.filter { window.contains(time: LenientFields($0)?.string("started_at")) }
            .compactMap { FitIQRecord.workout($0, zone: zone) }
    }
}

/// `fitiq.sleep`: sleep sessions in the local days `from`…`to`.
public struct FitIQSleepOperation: FitIQOperation {
    public init() {}
    public var name: String { "fitiq.sleep" }
    public var bodySchema: SchemaComponent { FitIQSchemas.sleepSessionList }
    public var defaultTTL: TimeInterval { 600 }
    public var arguments: [OperationArgument] { [OperationArgument("from", .date), OperationArgument("to", .date)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        try FitIQRecord.window(arguments, clock: clock)
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let window = FitIQRecord.dayWindow(arguments, clock: context.clock)
        let client = try FitIQClient.make(context)
        var paging = FitIQPaging()
        while let offset = paging.nextOffset {
            let value = try await client.get(
                "/api/v1/sleep",
                query: [
                    ("from", window.firstUTCDay.description), ("to", window.queryEndDay.description),
                    ("limit", String(paging.pageSize)), ("offset", String(offset)),
                ])
            let page = FitIQPaging.page(value, keys: ["sessions", "data"])
            paging.take(page.items, hasMore: page.hasMore)
        }
        return try OperationOutput(
            encoding: Self.sessions(paging.items, window: window, zone: context.timeZone),
            issues: paging.issue("sleep sessions").map { [$0] } ?? [])
    }

    /// The sleep sessions of the pages read that started within `window`.
    static func sessions(_ items: [JSONValue], window: FitIQDayWindow, zone: TimeZone) -> [JSONValue] {
        items.filter { window.contains(time: LenientFields($0)?.string("start_time")) }
            .compactMap { FitIQRecord.sleep($0, zone: zone) }
    }
}

/// Workouts, sleep sessions and food logs, reduced to what a dashboard shows.
enum FitIQRecord {
    static func window(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        let to = arguments["to"]?.date ?? clock.today
        let from = arguments["from"]?.date ?? to.adding(days: -6)
        guard from <= to else { throw ErrorDetail.badParameter("to (\(to)) is before from (\(from))") }
        guard from.days(to: to) < 366 else { throw ErrorDetail.badParameter("from…to spans more than 366 days") }
        return ["from": .date(from), "to": .date(to)]
    }

    /// The local days `from`…`to` of normalised arguments (a session or workout belongs to the
    /// local day it started on).
    static func dayWindow(_ arguments: [String: ArgumentValue], clock: RequestClock) -> FitIQDayWindow {
        let to = arguments["to"]?.date ?? clock.today
        let from = arguments["from"]?.date ?? to
        return FitIQDayWindow(first: from, last: to, zone: clock.timeZone)
    }

    static func time(_ fields: LenientFields, _ names: String..., zone: TimeZone) -> String? {
        for name in names {
            if let text = fields.string(name), let date = LenientDate.parse(text) {
                return LenientDate.format(date, in: zone)
            }
        }
        return nil
    }

    /// A food log; its calories are its own when FitIQ sends them, else its `food`'s per serving
    /// × servings (nil when neither is known); its name is the food's, else its own `food_name`.
    static func foodLog(_ value: JSONValue, zone: TimeZone, food: FitIQDayNutrition.Food? = nil) -> JSONValue? {
        guard let fields = LenientFields(value), let id = fields.string("id") else { return nil }
        let servings = fields.value("servings")
        let values =
            FitIQDayNutrition.LogValues(fields)
            ?? food.map { FitIQDayNutrition.LogValues(food: $0, servings: servings?.numberValue ?? 1) }
        let calories = values.flatMap { FitIQDayNutrition.calories($0.calories) }.map(Double.init)
        let name = food?.name ?? fields.string("food_name")
        let object: JSONObject = [
            "id": .string(id), "meal_type": fields.string("meal_type").map(JSONValue.string) ?? .null,
            "food_id": fields.string("food_id").map(JSONValue.string) ?? .null,
            "name": name.map(JSONValue.string) ?? .null,
            "servings": servings ?? .null,
            "calories": calories.map(JSONValue.number) ?? .null,
            "logged_at": time(fields, "logged_at", "created_at", zone: zone).map(JSONValue.string) ?? .null,
            "notes": fields.string("notes").map(JSONValue.string) ?? .null,
        ]
        return .object(object)
    }

    static func workout(_ value: JSONValue, zone: TimeZone) -> JSONValue? {
        guard let fields = LenientFields(value), let id = fields.string("id") else { return nil }
        let object: JSONObject = [
            "id": .string(id), "activity_type": fields.string("activity_type").map(JSONValue.string) ?? .null,
            "title": fields.string("title").map(JSONValue.string) ?? .null,
            "started_at": time(fields, "started_at", zone: zone).map(JSONValue.string) ?? .null,
            "ended_at": time(fields, "ended_at", zone: zone).map(JSONValue.string) ?? .null,
            "duration_minutes": fields.value("duration_minutes") ?? .null,
            "calories_burned": fields.value("calories_burned") ?? .null,
            "distance_meters": fields.value("distance_meters") ?? .null,
        ]
        return .object(object)
    }

    static func sleep(_ value: JSONValue, zone: TimeZone) -> JSONValue? {
        guard let fields = LenientFields(value), let id = fields.string("id") else { return nil }
        return .object([
            "id": .string(id),
            "start": time(fields, "start_time", zone: zone).map(JSONValue.string) ?? .null,
            "end": time(fields, "end_time", zone: zone).map(JSONValue.string) ?? .null,
            "total_sleep_minutes": fields.value("total_sleep_minutes") ?? .null,
            "time_in_bed_minutes": fields.value("time_in_bed_minutes") ?? .null,
            "efficiency_percent": fields.value("sleep_efficiency_percentage") ?? .null,
        ])
    }
}
