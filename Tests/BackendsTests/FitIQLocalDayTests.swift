import AsyncHTTPClient
import Foundation
import Logging
import Model
import NIOHTTP1
import Simulators
import Testing

@testable import Backends

/// FitIQ's dates are UTC days; the gateway's are the household's. West and east of UTC, a local
/// day overlaps two UTC days: its nutrition, food logs, workouts and sleep are exactly what
/// happened within it, across midnight and on the days the clocks change. No wall clock: the
/// simulator is seeded years away and every record is written at an explicit instant.
@Suite("FitIQ local days")
struct FitIQLocalDayTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var zone: String
        var day: String
        var note: String
        var testDescription: String { "\(zone) \(day) (\(note))" }
    }

    static let cases: [Case] = [
        Case(zone: "America/New_York", day: "2026-03-08", note: "spring forward, 23 h"),
        Case(zone: "America/New_York", day: "2026-11-01", note: "fall back, 25 h"),
        Case(zone: "America/Los_Angeles", day: "2026-07-15", note: "summer"),
        Case(zone: "Pacific/Auckland", day: "2026-04-05", note: "DST ends, 25 h"),
        Case(zone: "Pacific/Auckland", day: "2026-09-27", note: "DST starts, 23 h"),
        Case(zone: "Asia/Tokyo", day: "2026-01-15", note: "no DST"),
    ]

    /// A client of the simulator's demo account (Bearer and API key), for writing records.
    struct Account {
        let sim: RunningSimulator
        let token: String

        static func login(_ sim: RunningSimulator) async throws -> Account {
            let answer = try await SimulatorBackedTest.call(
                sim, .POST, "/api/v1/auth/login",
                json: #"{"email":"\#(FitIQSimulator.demoEmail)","password":"\#(FitIQSimulator.demoPassword)"}"#,
                headers: [("X-API-Key", FitIQSimulator.demoAPIKey)])
            return Account(sim: sim, token: try #require(answer["data"]?["access_token"]?.stringValue))
        }

        func post(_ path: String, _ body: JSONValue) async throws -> JSONValue {
            let json = String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
            let answer = try await SimulatorBackedTest.call(
                sim, .POST, path, json: json,
                headers: [("X-API-Key", FitIQSimulator.demoAPIKey), ("Authorization", "Bearer \(token)")])
            return try #require(answer["data"], "\(path): \(answer)")
        }

        func foodID(_ name: String) async throws -> String {
            let found = try await SimulatorBackedTest.call(
                sim, .GET, "/api/v1/foods/search?q=" + QueryString.escape(name),
                headers: [("X-API-Key", FitIQSimulator.demoAPIKey)])
            return try #require(found["data"]?["foods"]?.arrayValue?.first?["id"]?.stringValue)
        }

        func logFood(_ food: String, servings: Double, at instant: Date) async throws -> String {
            let log = try await post(
                "/api/v1/food-logs",
                .object([
                    "food_id": .string(food), "food_source": .string("database"), "meal_type": .string("snack"),
                    "servings": .number(servings), "logged_at": .string(LenientDate.format(instant, in: .gmt)),
                ]))
            return try #require(log["id"]?.stringValue)
        }

        /// A meal entered item by item (`manual`: its totals at once), as the FitIQ app can.
        func logMeal(calories: Int, at instant: Date) async throws -> String {
            let meal = try await post(
                "/api/v1/meal-logs/batch",
                .object([
                    "meal_type": .string("lunch"), "logged_at": .string(LenientDate.format(instant, in: .gmt)),
                    "items": .array([
                        .object([
                            "food_name": .string("Soup"), "quantity": .number(1), "unit": .string("bowl"),
                            "calories": .number(Double(calories)), "protein_g": .number(4), "carbs_g": .number(16),
                            "fat_g": .number(4),
                        ])
                    ]),
                ]))
            return try #require(meal["id"]?.stringValue)
        }
    }

    /// - Parameter rangeEndExclusive: the simulator's reading of `end_date` and `to` (FitIQ's
    ///   specification does not say whether they include their day; the gateway must cover the
    ///   local day under both).
    static func withSimulator(
        zone: TimeZone, now: Date, rangeEndExclusive: Bool = false, mealProcessingSeconds: TimeInterval = 3,
        _ body: (RunningSimulator, OperationContext) async throws -> Void
    ) async throws {
        // Seeded far from the days under test, so only this test's records are on them.
        let sim = try await FitIQSimulator(
            options: .init(
                seedDay: "2020-01-15", timeZone: zone, mealProcessingSeconds: mealProcessingSeconds,
                rangeEndExclusive: rangeEndExclusive)
        ).start()
        let profile = ProfileConfig([
            FitIQSettings(
                endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), apiKey: Secret(FitIQSimulator.demoAPIKey),
                email: FitIQSimulator.demoEmail, password: Secret(FitIQSimulator.demoPassword)
            )
        ])
        var context = SimulatorBackedTest.context(profile, zone: zone)
        context.clock = RequestClock(now: now, timeZone: zone)
        do {
            try await body(sim, context)
        } catch {
            await sim.stop()
            throw error
        }
        await sim.stop()
    }

    static func decode(_ output: OperationOutput) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: output.body)
    }

    static func ids(_ value: JSONValue) -> Set<String> {
        Set((value.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
    }

    @Test(arguments: cases, [false, true])
    func nutritionAndLogsAreThoseOfTheLocalDay(_ test: Case, rangeEndExclusive: Bool) async throws {
        let zone = try #require(TimeZone(identifier: test.zone))
        let day = try #require(LocalDate(test.day))
        let interval = day.interval(in: zone)
        try await Self.withSimulator(
            zone: zone, now: interval.start.addingTimeInterval(12 * 3600), rangeEndExclusive: rangeEndExclusive
        ) { sim, context in
            let account = try await Account.login(sim)
            let apple = try await account.foodID("Apple")  // 95 kcal
            let banana = try await account.foodID("Banana")  // 105 kcal
            let almonds = try await account.foodID("Almonds")  // 175 kcal
            let oatmeal = try await account.foodID("Oatmeal")  // 290 kcal
            let first = try await account.logFood(apple, servings: 1, at: interval.start.addingTimeInterval(30 * 60))
            let last = try await account.logFood(banana, servings: 2, at: interval.end.addingTimeInterval(-30 * 60))
            let before = try await account.logFood(
                almonds, servings: 1, at: interval.start.addingTimeInterval(-30 * 60))
            let after = try await account.logFood(oatmeal, servings: 1, at: interval.end.addingTimeInterval(30 * 60))
            // Meals the FitIQ app logged (meal logs): the last minutes of the day count, the
            // first minutes of the next do not.
            let meal = try await account.logMeal(calories: 200, at: interval.end.addingTimeInterval(-10 * 60))
            _ = try await account.logMeal(calories: 400, at: interval.end.addingTimeInterval(10 * 60))

            let nutrition = try Self.decode(
                try await FitIQNutritionOperation().fetch(["date": .date(day)], context: context))
            #expect(nutrition["date"] == .string(test.day))
            #expect(nutrition["calories"] == .number(505))  // 95 + 2 × 105 + the meal's 200
            #expect(nutrition["meals"]?["snack"]?["items"]?.numberValue == 2)
            #expect(nutrition["meals"]?["lunch"]?["calories"]?.numberValue == 200)
            #expect(nutrition["protein_g"]?.numberValue == 7.1)  // 0.5 + 2 × 1.3 + 4
            #expect(
                nutrition["remaining_calories"]?.numberValue.map { $0 + 505 } == nutrition["goal_calories"]?.numberValue
            )
            let meals = try Self.decode(
                try await FitIQMealLogsOperation().fetch(["date": .date(day)], context: context))
            #expect(Self.ids(meals) == [meal])

            let logs = try Self.decode(try await FitIQFoodLogsOperation().fetch(["date": .date(day)], context: context))
            #expect(Self.ids(logs) == [first, last])

            let previous = try Self.decode(
                try await FitIQNutritionOperation().fetch(["date": .date(day.adding(days: -1))], context: context))
            #expect(previous["calories"]?.numberValue == 175)
            let following = try Self.decode(
                try await FitIQNutritionOperation().fetch(["date": .date(day.adding(days: 1))], context: context))
            #expect(following["calories"]?.numberValue == 690)  // 290 + the meal's 400
            let next = try Self.decode(
                try await FitIQFoodLogsOperation().fetch(["date": .date(day.adding(days: 1))], context: context))
            #expect(Self.ids(next) == [after])
            _ = before
        }
    }

    @Test(arguments: cases, [false, true])
    func workoutsAndSleepAreThoseThatStartedInTheLocalDays(_ test: Case, rangeEndExclusive: Bool) async throws {
        let zone = try #require(TimeZone(identifier: test.zone))
        let day = try #require(LocalDate(test.day))
        let interval = day.interval(in: zone)
        try await Self.withSimulator(
            zone: zone, now: interval.start.addingTimeInterval(12 * 3600), rangeEndExclusive: rangeEndExclusive
        ) { sim, context in
            let account = try await Account.login(sim)
            func workout(_ offset: TimeInterval, from instant: Date) async throws -> String {
                let started = instant.addingTimeInterval(offset)
                let value = try await account.post(
                    "/api/v1/workouts",
                    .object([
                        "activity_type": .string("running"),
                        "started_at": .string(LenientDate.format(started, in: .gmt)),
                    ]))
                return try #require(value["id"]?.stringValue)
            }
            func sleep(_ offset: TimeInterval, from instant: Date) async throws -> String {
                let start = instant.addingTimeInterval(offset)
                let value = try await account.post(
                    "/api/v1/sleep",
                    .object([
                        "start_time": .string(LenientDate.format(start, in: .gmt)),
                        "end_time": .string(LenientDate.format(start.addingTimeInterval(3600), in: .gmt)),
                    ]))
                return try #require(value["id"]?.stringValue)
            }
            let inside = [
                try await workout(10 * 60, from: interval.start), try await workout(-10 * 60, from: interval.end),
            ]
            _ = try await workout(-10 * 60, from: interval.start)
            _ = try await workout(10 * 60, from: interval.end)
            let nights = [
                try await sleep(10 * 60, from: interval.start), try await sleep(-10 * 60, from: interval.end),
            ]
            _ = try await sleep(-10 * 60, from: interval.start)
            _ = try await sleep(10 * 60, from: interval.end)

            let arguments: [String: ArgumentValue] = ["from": .date(day), "to": .date(day)]
            let workouts = try Self.decode(try await FitIQWorkoutsOperation().fetch(arguments, context: context))
            #expect(Self.ids(workouts) == Set(inside))
            let sessions = try Self.decode(try await FitIQSleepOperation().fetch(arguments, context: context))
            #expect(Self.ids(sessions) == Set(nights))
        }
    }

    /// FitIQ pages its lists (at most 100 a page): the gateway reads on with `offset` while it
    /// says `has_more`.
    @Test func workoutsAndSleepPageThrough() async throws {
        let zone = try #require(TimeZone(identifier: "Europe/Amsterdam"))
        let first = try #require(LocalDate("2026-06-01"))
        let last = first.adding(days: 29)
        let start = first.start(in: zone)
        try await Self.withSimulator(zone: zone, now: last.start(in: zone)) { sim, context in
            let account = try await Account.login(sim)
            for index in 0..<105 {
                let started = start.addingTimeInterval(Double(index) * 6 * 3600)
                _ = try await account.post(
                    "/api/v1/workouts",
                    .object([
                        "activity_type": .string("walking"),
                        "started_at": .string(LenientDate.format(started, in: .gmt)),
                    ]))
                let night = start.addingTimeInterval(Double(index) * 6 * 3600 + 60)
                _ = try await account.post(
                    "/api/v1/sleep",
                    .object([
                        "start_time": .string(LenientDate.format(night, in: .gmt)),
                        "end_time": .string(LenientDate.format(night.addingTimeInterval(1800), in: .gmt)),
                    ]))
            }
            sim.control.resetStats()
            let arguments: [String: ArgumentValue] = ["from": .date(first), "to": .date(last)]
            let workouts = try await FitIQWorkoutsOperation().fetch(arguments, context: context)
            #expect(Self.ids(try Self.decode(workouts)).count == 105)
            #expect(workouts.issues.isEmpty)
            #expect(sim.control.calls("GET /api/v1/workouts/date-range") == 2)
            let sleep = try await FitIQSleepOperation().fetch(arguments, context: context)
            #expect(Self.ids(try Self.decode(sleep)).count == 105)
            #expect(sleep.issues.isEmpty)
            #expect(sim.control.calls("GET /api/v1/sleep") == 2)
        }
    }

    /// A log written without `logged_at` is on FitIQ's clock: when the gateway's day differs
    /// (here the gateway's clock says another day), both days' cached nutrition is wrong.
    @Test func aFoodLogInvalidatesEveryLocalDayItTouches() async throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let gatewayDay = try #require(LocalDate("2026-03-08"))
        let now = gatewayDay.start(in: zone).addingTimeInterval(22.5 * 3600)  // 23:30: the day has 23 hours
        try await Self.withSimulator(zone: zone, now: now) { sim, context in
            let apple = try await Account.login(sim).foodID("Apple")
            let write = FitIQLogFoodWrite()
            let body: JSONValue = .object([
                "food_id": .string(apple), "food_source": .string("database"), "meal_type": .string("snack"),
                "servings": .number(1),
            ])
            let result = try await write.perform(
                WriteRequest(body: body, bytes: try JSONEncoder().encode(body)), context: context)
            let answer = try JSONDecoder().decode(JSONValue.self, from: result.body)
            let stored = try #require(answer["food_log"]?["logged_at"]?.stringValue.flatMap { LenientDate.parse($0) })
            let storedDay = LocalDate(containing: stored, in: zone)
            #expect(answer["date"] == .string(storedDay.description))
            for operation in [FitIQNutritionOperation().name, FitIQFoodLogsOperation().name] {
                let invalidation = try #require(result.invalidations.first { $0.operation == operation })
                #expect(invalidation.matches(["date": .date(storedDay)]))
                #expect(invalidation.matches(["date": .date(gatewayDay)]))
                #expect(!invalidation.matches(["date": .date(gatewayDay.adding(days: -1))]))
            }
        }
    }

    @Test func theDaysOfAFoodLog() {
        let day = LocalDate(year: 2026, month: 3, day: 8)
        #expect(FitIQFoodLogs.days(stored: day, expected: day) == [day])
        #expect(FitIQFoodLogs.days(stored: day, expected: day.adding(days: 1)) == [day, day.adding(days: 1)])
        #expect(FitIQFoodLogs.days(stored: nil, expected: day) == [day])
    }
}
