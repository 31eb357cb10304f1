import Foundation
import Model
import Simulators
import Testing

@testable import Backends

/// FitIQ's meal logs, as the FitIQ app logs meals: counted with the food logs for the local day
/// without counting one twice, a meal still being processed said so, a meal logged in words
/// through the gateway, and a food log whose food cannot be looked up never dropped silently.
@Suite("FitIQ meal logs")
struct FitIQMealLogsTests {
    static let day = LocalDate(year: 2026, month: 11, day: 24)
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!

    static func meal(
        _ id: String, status: String, calories: Int? = nil, at time: String = "2026-11-24T11:00:00Z",
        type: String = "lunch"
    ) -> JSONValue {
        var object: JSONObject = [
            "id": .string(id), "user_id": .string("u"), "raw_input": .string("soup"), "meal_type": .string(type),
            "status": .string(status), "logged_at": .string(time),
        ]
        if let calories {
            object["total_calories"] = .int(calories)
            object["total_protein_g"] = .number(4)
        }
        if status == "processing" { object["estimated_completion_seconds"] = .int(7) }
        return .object(object)
    }

    // MARK: Without sockets

    @Test func completedAndManualMealsCountProcessingAndFailedAreNamed() throws {
        let window = FitIQDayWindow(day: Self.day, zone: Self.zone)
        let items = [
            Self.meal("m1", status: "completed", calories: 350),
            Self.meal("m2", status: "manual", calories: 200, type: "dinner"),
            Self.meal("m3", status: "processing"),
            Self.meal("m4", status: "failed"),
            // On another local day (23:30 UTC is 00:30 the next day in Amsterdam).
            Self.meal("m5", status: "completed", calories: 999, at: "2026-11-24T23:30:00Z"),
            // The same meal on a second page (it moved while the pages were read).
            Self.meal("m1", status: "completed", calories: 350),
        ]
        let meals = FitIQMealLog.meals(items, in: window)
        #expect(meals.map(\.id) == ["m1", "m2", "m3", "m4"])
        let day = try FitIQDayNutrition.summary(date: Self.day, logs: [], foods: [:], meals: meals, goal: 2000)
        #expect(day.summary.calories == 550)
        #expect(day.summary.proteinG == 8)
        #expect(day.summary.meals.lunch == .init(calories: 350, items: 3))
        #expect(day.summary.meals.dinner == .init(calories: 200, items: 1))
        #expect(day.summary.remainingCalories == 1450)
        let codes = day.issues.map(\.code)
        #expect(codes == ["meal_processing", "meal_failed"])
        #expect(day.issues[0].message.contains("m3"))
        #expect(day.issues[1].message.contains("m4"))
        // While one is processing, the answer is fresh only until FitIQ expects it done.
        #expect(FitIQMealLog.freshness(of: meals) == 7)
        #expect(FitIQMealLog.freshness(of: Array(meals.prefix(2))) == nil)
    }

    @Test func aFoodLogWhoseFoodIsUnknownCountsFromItsOwnValuesOrIsNamed() throws {
        let known = FitIQDayNutrition.Food(calories: 100, proteinG: 1, carbsG: 2, fatG: 3, id: "f1", name: "Known")
        // The second one is in the iOS guide's shape: the log carries its own values, which
        // count with no lookup.
        let logs = try #require(
            JSONValue.parse(
                Array(
                    #"""
                    [{"id":"l1","food_id":"f1","meal_type":"breakfast","servings":2},
                     {"id":"l2","food_id":"f2","meal_type":"lunch","servings":1,"calories":321,"protein_g":10,
                      "food_name":"Own soup"},
                     {"id":"l3","food_id":"f3","meal_type":"snack","servings":1}]
                    """#.utf8))?.arrayValue)
        #expect(FitIQDayNutrition.foodIDsToLookUp(logs) == ["f1", "f3"])
        let day = try FitIQDayNutrition.summary(date: Self.day, logs: logs, foods: ["f1": known], goal: nil)
        #expect(day.summary.calories == 521)
        #expect(day.summary.meals.snack == .init(calories: nil, items: 1))
        #expect(day.issues.map(\.code) == ["food_not_found"])
        #expect(day.issues[0].message.contains("l3"))
        #expect(!day.issues[0].message.contains("l2"))
        let own = try #require(FitIQRecord.foodLog(logs[1], zone: Self.zone))
        #expect(own["calories"] == .number(321))
        #expect(own["name"] == .string("Own soup"))
    }

    @Test func aMealInWordsIsCheckedAndGetsTheAppsMealOfTheHour() throws {
        #expect(throws: WriteRefusal.self) { try MealInput(text: "  ").validate() }
        #expect(throws: WriteRefusal.self) { try MealInput(text: String(repeating: "a", count: 1001)).validate() }
        #expect(throws: WriteRefusal.self) { try MealInput(text: "egg\u{1B}[2J").validate() }
        #expect(throws: WriteRefusal.self) { try MealInput(text: "egg", mealType: "brunch").validate() }
        #expect(throws: WriteRefusal.self) { try MealInput(text: "egg", loggedAt: "2026-11-24T08:00").validate() }
        try MealInput(text: "two eggs and toast", mealType: "breakfast", loggedAt: "2026-11-24T08:00:00+01:00")
            .validate()
        func type(_ time: String) -> String {
            MealInput.mealType(at: LenientDate.parse(time)!, in: Self.zone)
        }
        #expect(type("2026-11-24T04:30:00Z") == "breakfast")  // 05:30 local
        #expect(type("2026-11-24T11:00:00Z") == "lunch")  // 12:00
        #expect(type("2026-11-24T10:59:00Z") == "snack")  // 11:59
        #expect(type("2026-11-24T20:59:00Z") == "dinner")  // 21:59
        #expect(type("2026-11-24T21:00:00Z") == "snack")  // 22:00
        let body = MealInput(text: " two eggs \n").upstreamBody(
            now: LenientDate.parse("2026-07-01T06:00:00Z")!, zone: Self.zone)
        #expect(body["raw_input"] == .string("two eggs"))
        #expect(body["meal_type"] == .string("breakfast"))  // 08:00 in summer
        #expect(body["logged_at"] == .string("2026-07-01T06:00:00Z"))
    }

    // MARK: Against the simulator

    static func withSimulator(
        processing seconds: TimeInterval, now: Date = Date(),
        _ body: (RunningSimulator, OperationContext) async throws -> Void
    ) async throws {
        try await FitIQLocalDayTests.withSimulator(zone: zone, now: now, mealProcessingSeconds: seconds, body)
    }

    static func decode(_ output: OperationOutput) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: output.body)
    }

    /// `POST /v1/meals` as the gateway performs it, then the day as it reads it.
    static func logMeal(_ text: String, context: OperationContext) async throws -> (JSONValue, WriteResult) {
        let body: JSONValue = .object(["text": .string(text)])
        let result = try await FitIQLogMealWrite().perform(
            WriteRequest(body: body, bytes: try JSONEncoder().encode(body)), context: context)
        return (try JSONDecoder().decode(JSONValue.self, from: result.body), result)
    }

    @Test func aMealLoggedInWordsShowsAsProcessingUntilFitIQHasItsNutrients() async throws {
        try await Self.withSimulator(processing: 3600) { sim, context in
            let (answer, result) = try await Self.logMeal("two eggs and a slice of toast", context: context)
            let meal = try #require(answer["meal"])
            #expect(meal["status"] == .string("processing"))
            #expect(meal["description"] == .string("two eggs and a slice of toast"))
            #expect(meal["calories"] == .null)
            #expect(answer["date"] == .string(context.today.description))
            #expect(Set(result.invalidations.map(\.operation)) == ["fitiq.nutrition", "fitiq.meal_logs"])
            #expect(sim.control.calls("POST /api/v1/meal-logs/natural") == 1)

            let nutrition = try await FitIQNutritionOperation().fetch(["date": .date(context.today)], context: context)
            #expect(nutrition.issues.map(\.code).contains("meal_processing"))
            #expect(nutrition.freshFor != nil && nutrition.freshFor! <= 30)
            let meals = try await FitIQMealLogsOperation().fetch(["date": .date(context.today)], context: context)
            let listed = try Self.decode(meals).arrayValue ?? []
            #expect(listed.count == 1)
            #expect(listed.first?["status"] == .string("processing"))
            #expect(meals.freshFor != nil)
        }
    }

    @Test func aParsedMealCountsAndAnUnparsableOneIsSaidToHaveFailed() async throws {
        try await Self.withSimulator(processing: 0) { _, context in
            let before = try Self.decode(
                try await FitIQNutritionOperation().fetch(["date": .date(context.today)], context: context))
            _ = try await Self.logMeal("two eggs and a slice of toast", context: context)  // 2 × 78 + 80
            _ = try await Self.logMeal("zzz qqq", context: context)
            let nutrition = try await FitIQNutritionOperation().fetch(["date": .date(context.today)], context: context)
            let after = try Self.decode(nutrition)
            #expect(after["calories"]?.numberValue == (before["calories"]?.numberValue ?? -1) + 236)
            #expect(nutrition.issues.map(\.code) == ["meal_failed"])
            #expect(nutrition.freshFor == nil)
            let meals = try Self.decode(
                try await FitIQMealLogsOperation().fetch(["date": .date(context.today)], context: context))
            let statuses = Set((meals.arrayValue ?? []).compactMap { $0["status"]?.stringValue })
            #expect(statuses == ["completed", "failed"])
        }
    }

    /// FitIQ's `GET /api/v1/foods/{id}` is an API-key route: the simulator finds only the global
    /// library there, so a user's own food is read from `/api/v1/users/me/foods`.
    @Test func aUsersOwnFoodCountsThroughTheirOwnFoods() async throws {
        let zone = Self.zone
        let day = LocalDate(year: 2026, month: 6, day: 10)
        try await FitIQLocalDayTests.withSimulator(zone: zone, now: day.start(in: zone).addingTimeInterval(43_200)) {
            sim, context in
            let account = try await FitIQLocalDayTests.Account.login(sim)
            let own = try await SimulatorBackedTest.call(
                sim, .GET, "/api/v1/users/me/foods",
                headers: [("X-API-Key", FitIQSimulator.demoAPIKey), ("Authorization", "Bearer \(account.token)")])
            let oats = try #require(own["data"]?["foods"]?.arrayValue?.first)
            let id = try #require(oats["id"]?.stringValue)
            let lookedUp = try await SimulatorBackedTest.call(
                sim, .GET, "/api/v1/foods/\(id)", headers: [("X-API-Key", FitIQSimulator.demoAPIKey)])
            #expect(lookedUp["error"] != nil)
            _ = try await account.post(
                "/api/v1/food-logs",
                .object([
                    "food_id": .string(id), "food_source": .string("custom"), "meal_type": .string("breakfast"),
                    "servings": .number(1),
                    "logged_at": .string(
                        LenientDate.format(day.start(in: zone).addingTimeInterval(8 * 3600), in: .gmt)),
                ]))
            let nutrition = try await FitIQNutritionOperation().fetch(["date": .date(day)], context: context)
            #expect(try Self.decode(nutrition)["calories"]?.numberValue == oats["calories"]?.numberValue)
            #expect(nutrition.issues.isEmpty)
            let logs = try Self.decode(try await FitIQFoodLogsOperation().fetch(["date": .date(day)], context: context))
            #expect(logs.arrayValue?.first?["name"] == oats["name"])
            // Remembered: the next day's read asks FitIQ for neither the food nor the own foods.
            sim.control.resetStats()
            _ = try await FitIQNutritionOperation().fetch(["date": .date(day)], context: context)
            #expect(sim.control.calls("GET /api/v1/users/me/foods") == 0)
        }
    }
}
