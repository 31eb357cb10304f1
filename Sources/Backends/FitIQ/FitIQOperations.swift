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

/// `fitiq.nutrition`: the day's totals against the goal (`date`, default today).
public struct FitIQNutritionOperation: FitIQOperation {
    public init() {}
    public var name: String { "fitiq.nutrition" }
    public var bodySchema: SchemaComponent? { NutritionSummary.schemaComponent }
    public var defaultTTL: TimeInterval { 300 }
    public var arguments: [OperationArgument] { [OperationArgument("date", .date)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        ["date": arguments["date"] ?? .date(clock.today)]
    }

    /// FitIQ's day summary is of a UTC day: it is the local day's only when the zone is at UTC
    /// that day. Otherwise the gateway totals the food logged within the local day itself
    /// (`FitIQDayNutrition`), from the logs of the UTC days it overlaps and the foods' values.
    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let date = arguments["date"]?.date ?? context.today
        let client = try FitIQClient.make(context)
        let window = FitIQDayWindow(day: date, zone: context.timeZone)
        if window.isOneUTCDay {
            let value = try await client.get("/api/v1/food-logs/summary", query: [("date", date.description)])
            return try OperationOutput(encoding: Self.summary(value, date: date))
        }
        async let summary = client.get("/api/v1/food-logs/summary", query: [("date", window.firstUTCDay.description)])
        let logs = try await FitIQFoodLogsOperation.logs(in: window, client: client)
        let goal = FitIQDayNutrition.goal(inSummary: try await summary)
        let ids = FitIQFoodLogsOperation.foodIDs(logs)
        let foods = try await FitIQFoodCatalog.shared(context.sessions, baseURL: client.settings.endpoint.baseURL)
            .foods(ids, client: client)
        let unknown = ids.subtracting(foods.keys).count
        let issues =
            unknown == 0
            ? []
            : [
                SectionIssue(
                    scope: "foods", code: "food_not_found",
                    message: "FitIQ did not find \(unknown) of the day's foods; their calories are not counted")
            ]
        return try OperationOutput(
            encoding: try FitIQDayNutrition.summary(date: date, logs: logs, foods: foods, goal: goal), issues: issues)
    }

    /// The sum of FitIQ's figures; nil when it overflows (FitIQ's figures are its own: an
    /// answer with absurd ones gives no total rather than a trap).
    static func sum(_ values: [Int]) -> Int? {
        var total = 0
        for value in values {
            let (next, overflow) = total.addingReportingOverflow(value)
            if overflow { return nil }
            total = next
        }
        return total
    }

    /// `a - b`; nil when it overflows.
    static func difference(_ a: Int, _ b: Int) -> Int? {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? nil : result
    }

    /// The spec's snake_case (`total_calories`, `remaining_cals`, `breakfast_logs`) or the
    /// guide's camelCase; a meal is a count of logs or a list of them.
    static func summary(_ value: JSONValue, date: LocalDate) throws -> NutritionSummary {
        guard let fields = LenientFields(value["summary"] ?? value),
            let calories = fields.int("total_calories", "calories", "totalCalories")
        else {
            throw BackendError(
                .badResponse, backend: FitIQClient.backend, message: "FitIQ sent a summary without total_calories")
        }
        func number(_ names: String...) -> Double {
            for name in names {
                if let value = fields.value(name)?.numberValue { return value }
            }
            return 0
        }
        func meal(_ name: String) -> NutritionSummary.Meal {
            switch fields.value("\(name)_logs", name) {
            case .int(let count)?:
                return .init(calories: nil, items: count)
            case .double(let count)? where count.isFinite && abs(count) < 1e9:
                return .init(calories: nil, items: Int(count))
            case .array(let logs)?:
                let calories = logs.compactMap { LenientFields($0)?.int("calories", "total_calories") }
                return .init(calories: calories.isEmpty ? nil : Self.sum(calories), items: logs.count)
            case .object(let object)?:
                let meal = LenientFields(.object(object))
                return .init(calories: meal?.int("calories"), items: meal?.int("items", "count", "log_count") ?? 0)
            default:
                return .init(calories: nil, items: 0)
            }
        }
        let goal = fields.int("calorie_goal", "goal_calories", "calorieGoal")
        return NutritionSummary(
            date: fields.string("date").flatMap(LocalDate.init(leadingDayOf:))?.description ?? date.description,
            calories: calories,
            proteinG: number("total_protein_g", "protein_g", "totalProtein", "protein"),
            carbsG: number("total_carbs_g", "carbs_g", "totalCarbs", "carbs"),
            fatG: number("total_fat_g", "fat_g", "totalFat", "fat"),
            goalCalories: goal,
            remainingCalories: fields.int("remaining_cals", "remaining_calories", "remainingCalories")
                ?? goal.flatMap { Self.difference($0, calories) },
            meals: .init(
                breakfast: meal("breakfast"), lunch: meal("lunch"), dinner: meal("dinner"), snack: meal("snack"))
        )
    }
}

/// `fitiq.food_logs`: the food logged on a day, each log with its food's name and calories
/// (per serving × servings) from the food catalog (`FitIQFoodCatalog`: one call per food the
/// first time only) — what a dashboard lists to offer deleting one.
public struct FitIQFoodLogsOperation: FitIQOperation {
    public init() {}
    public var name: String { "fitiq.food_logs" }
    public var bodySchema: SchemaComponent? { FitIQSchemas.foodLogList }
    public var defaultTTL: TimeInterval { 300 }
    public var arguments: [OperationArgument] { [OperationArgument("date", .date)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        ["date": arguments["date"] ?? .date(clock.today)]
    }

    /// The logs of the UTC days the local day overlaps, those logged within the local day.
    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let date = arguments["date"]?.date ?? context.today
        let window = FitIQDayWindow(day: date, zone: context.timeZone)
        let client = try FitIQClient.make(context)
        let rows = try await Self.logs(in: window, client: client)
        let foods = try await FitIQFoodCatalog.shared(context.sessions, baseURL: client.settings.endpoint.baseURL)
            .foods(Self.foodIDs(rows), client: client)
        return try OperationOutput(encoding: Self.answer(rows, foods: foods, zone: context.timeZone))
    }

    /// The (lowercased) ids of the foods `rows` logged.
    static func foodIDs(_ rows: [JSONValue]) -> Set<String> {
        Set(rows.compactMap { LenientFields($0)?.string("food_id")?.lowercased() })
    }

    /// The logs as the section answers them, each with its food's name and calories from `foods`.
    static func answer(_ rows: [JSONValue], foods: [String: FitIQDayNutrition.Food], zone: TimeZone) -> [JSONValue] {
        rows.compactMap { row in
            FitIQRecord.foodLog(
                row, zone: zone, food: LenientFields(row)?.string("food_id").flatMap { foods[$0.lowercased()] })
        }
    }

    /// FitIQ's FoodLogs logged within `window` (asked for by the UTC days it overlaps).
    static func logs(in window: FitIQDayWindow, client: FitIQClient) async throws -> [JSONValue] {
        let value = try await client.get(
            "/api/v1/food-logs",
            query: [
                ("start_date", window.firstUTCDay.description), ("end_date", window.lastUTCDay.description),
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
    public var bodySchema: SchemaComponent? { FitIQSchemas.workoutList }
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
    public var bodySchema: SchemaComponent? { FitIQSchemas.sleepSessionList }
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
                    ("from", window.firstUTCDay.description), ("to", window.lastUTCDay.description),
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

    /// A food log; with its `food` (nil when not known), the food's name and the log's calories
    /// (the food's per serving × servings, as FitIQ totals them).
    static func foodLog(_ value: JSONValue, zone: TimeZone, food: FitIQDayNutrition.Food? = nil) -> JSONValue? {
        guard let fields = LenientFields(value), let id = fields.string("id") else { return nil }
        let servings = fields.value("servings")
        let calories = food.map { ($0.calories * (servings?.numberValue ?? 1)).rounded() }
        let object: JSONObject = [
            "id": .string(id), "meal_type": fields.string("meal_type").map(JSONValue.string) ?? .null,
            "food_id": fields.string("food_id").map(JSONValue.string) ?? .null,
            "name": food?.name.map(JSONValue.string) ?? .null,
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
