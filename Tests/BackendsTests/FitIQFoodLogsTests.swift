import AsyncHTTPClient
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

@testable import Backends

/// Logging food against the FitIQ simulator (demo account, API key and seed, a fixed day in
/// Amsterdam: the tests do not depend on the wall clock).
@Suite("FitIQ food logs")
struct FitIQFoodLogsTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let post = "POST /api/v1/food-logs"
    /// "Today" for the gateway and the seed day of the simulator.
    static let today = LocalDate(year: 2026, month: 11, day: 23)

    static func withSimulator(_ body: (RunningSimulator, OperationContext) async throws -> Void) async throws {
        let sim = try await FitIQSimulator(
            options: .init(seedDay: today.description, timeZone: zone)
        ).start()
        let profile = ProfileConfig([
            FitIQSettings(
                endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), apiKey: Secret(FitIQSimulator.demoAPIKey),
                email: FitIQSimulator.demoEmail, password: Secret(FitIQSimulator.demoPassword)
            )
        ])
        try await SimulatorBackedTest.run(sim, profile: profile, zone: zone) { sim, context in
            var context = context
            context.clock = RequestClock(now: today.start(in: zone).addingTimeInterval(13 * 3600), timeZone: zone)
            try await body(sim, context)
        }
    }

    static func context(_ profile: ProfileConfig) -> OperationContext {
        SimulatorBackedTest.context(profile, zone: zone)
    }

    static func call(_ sim: RunningSimulator, _ method: HTTPMethod, _ path: String, apiKey: Bool = false) async throws
        -> JSONValue
    {
        try await SimulatorBackedTest.call(
            sim, method, path, headers: apiKey ? [("X-API-Key", FitIQSimulator.demoAPIKey)] : [])
    }

    /// A food of the simulator's catalog, by name.
    static func foodID(_ sim: RunningSimulator, _ name: String) async throws -> String {
        let found = try await call(sim, .GET, "/api/v1/foods/search?q=" + QueryString.escape(name), apiKey: true)
        return try #require(found["data"]?["foods"]?.arrayValue?.first?["id"]?.stringValue)
    }

    static func logs(on date: LocalDate, _ context: OperationContext) async throws -> [JSONValue] {
        let output = try await FitIQFoodLogsOperation().fetch(["date": .date(date)], context: context)
        return try JSONDecoder().decode([JSONValue].self, from: output.body)
    }

    static func nutrition(on date: LocalDate, _ context: OperationContext) async throws -> JSONValue {
        let output = try await FitIQNutritionOperation().fetch(["date": .date(date)], context: context)
        return try JSONDecoder().decode(JSONValue.self, from: output.body)
    }

    static func error(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    /// `date` at `hour`:`minute` local time, written with its offset.
    static func local(_ date: LocalDate, _ hour: Int, _ minute: Int = 0) -> String {
        LenientDate.format(date.start(in: zone).addingTimeInterval(Double(hour * 3600 + minute * 60)), in: zone)
    }

    // MARK: -

    @Test func aLoggedMealShowsInTheDaysLogsAndSummary() async throws {
        try await Self.withSimulator { sim, context in
            let today = Self.today
            let banana = try await Self.foodID(sim, "Banana")
            let before = try await Self.nutrition(on: today, context)
            let beforeLogs = try await Self.logs(on: today, context)
            sim.control.resetStats()

            let loggedAt = Self.local(today, 12, 30)
            let input = FoodLogInput(
                foodID: banana, foodSource: "database", mealType: "snack", servings: 2, loggedAt: loggedAt,
                notes: "after the match")
            let (log, days) = try await FitIQFoodLogs.log(input, context: context)
            #expect(days == [today])
            let id = try #require(log["id"]?.stringValue)
            #expect(log["food_id"] == .string(banana))
            #expect(log["meal_type"] == .string("snack"))
            #expect(log["servings"] == .number(2))
            #expect(log["notes"] == .string("after the match"))
            #expect(log["logged_at"]?.stringValue.flatMap { LenientDate.parse($0) } == LenientDate.parse(loggedAt))
            #expect(sim.control.calls(Self.post) == 1)

            let logs = try await Self.logs(on: today, context)
            #expect(logs.count == beforeLogs.count + 1)
            #expect(logs.contains { $0["id"] == .string(id) })
            let after = try await Self.nutrition(on: today, context)
            #expect(after["calories"]?.numberValue == (before["calories"]?.numberValue ?? 0) + 210)
            #expect(
                after["meals"]?["snack"]?["items"]?.numberValue
                    == (before["meals"]?["snack"]?["items"]?.numberValue ?? 0) + 1)
        }
    }

    @Test func theDayIsTheLocalDayOfLoggedAtOrToday() async throws {
        try await Self.withSimulator { sim, context in
            let today = Self.today
            let apple = try await Self.foodID(sim, "Apple")
            // Half past midnight here is still yesterday in UTC: the local day counts.
            let early = try await FitIQFoodLogs.log(
                FoodLogInput(
                    foodID: apple, foodSource: "database", mealType: "snack", servings: 1,
                    loggedAt: Self.local(today, 0, 30)),
                context: context
            )
            #expect(early.days == [today])
            let yesterday = today.adding(days: -1)
            let late = try await FitIQFoodLogs.log(
                FoodLogInput(
                    foodID: apple, foodSource: "database", mealType: "dinner", servings: 1,
                    loggedAt: Self.local(yesterday, 21)),
                context: context
            )
            #expect(late.days == [yesterday])
            // An instant in UTC, another zone's notation of the same local day.
            let zulu = LenientDate.format(today.start(in: Self.zone).addingTimeInterval(10 * 3600), in: .gmt)
            #expect(
                try await FitIQFoodLogs.log(
                    FoodLogInput(
                        foodID: apple, foodSource: "database", mealType: "lunch", servings: 0.5, loggedAt: zulu),
                    context: context
                ).days == [today])
            // Without logged_at FitIQ's clock decides: the log's own day first.
            let now = try await FitIQFoodLogs.log(
                FoodLogInput(foodID: apple, foodSource: "database", mealType: "lunch", servings: 1), context: context)
            let stored = try #require(now.log["logged_at"]?.stringValue.flatMap { LenientDate.parse($0) })
            #expect(now.days.first == LocalDate(containing: stored, in: Self.zone))
            #expect(now.days.contains(today))
            #expect(sim.control.calls(Self.post) == 4)
        }
    }

    @Test func everyFieldIsCheckedBeforeAnythingIsSent() async throws {
        try await Self.withSimulator { sim, context in
            let valid = FoodLogInput(
                foodID: "6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7", foodSource: "database", mealType: "lunch", servings: 1)
            var cases: [(String, FoodLogInput)] = []
            func with(_ label: String, _ change: (inout FoodLogInput) -> Void) {
                var input = valid
                change(&input)
                cases.append((label, input))
            }
            with("empty food_id") { $0.foodID = "" }
            with("blank food_id") { $0.foodID = "   " }
            with("long food_id") { $0.foodID = String(repeating: "a", count: 101) }
            with("food_id not a UUID") { $0.foodID = "f1" }
            with("food_id padded") { $0.foodID = " 6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7" }
            with("food_source") { $0.foodSource = "restaurant" }
            with("food_source case") { $0.foodSource = "Database" }
            with("meal_type") { $0.mealType = "brunch" }
            with("servings 0") { $0.servings = 0 }
            with("servings negative") { $0.servings = -1 }
            with("servings over 100") { $0.servings = 100.5 }
            with("servings nan") { $0.servings = .nan }
            with("servings infinite") { $0.servings = .infinity }
            with("logged_at naive") { $0.loggedAt = "2026-11-23T12:00:00" }
            with("logged_at date only") { $0.loggedAt = "2026-11-23" }
            with("logged_at garbage") { $0.loggedAt = "yesterday" }
            with("logged_at impossible") { $0.loggedAt = "2026-02-30T12:00:00Z" }
            with("notes too long") { $0.notes = String(repeating: "n", count: 501) }
            with("notes control") { $0.notes = "a\u{0}b" }
            for (label, input) in cases {
                #expect(throws: WriteRefusal.self, "\(label)") { try input.validate() }
                let error = await Self.error { _ = try await FitIQFoodLogs.log(input, context: context) }
                let refusal = error as? WriteRefusal
                #expect(refusal?.status == 400, "\(label)")
                #expect(refusal?.code == "bad_request", "\(label)")
            }
            #expect(sim.control.totalCalls == 0, "refused before any upstream call, the login included")

            // The limits themselves are fine.
            let apple = try await Self.foodID(sim, "Apple")
            let edge = FoodLogInput(
                foodID: apple, foodSource: "database", mealType: "breakfast", servings: 100,
                loggedAt: Self.local(Self.today, 8),
                notes: String(repeating: "n", count: 500) + "\n"
            )
            #expect(throws: WriteRefusal.self) { try edge.validate() }
            var fine = edge
            fine.notes = String(repeating: "n", count: 499) + "\n"
            try fine.validate()
            _ = try await FitIQFoodLogs.log(fine, context: context)
            try FoodLogInput(foodID: apple, foodSource: "custom", mealType: "dinner", servings: 0.01).validate()
        }
    }

    @Test func decodesTheClientsSnakeCase() throws {
        let json =
            #"{"food_id":"f1","food_source":"barcode","meal_type":"breakfast","servings":1.5,"logged_at":"2026-11-23T08:00:00+01:00","notes":"n","extra":1}"#
        let input = try JSONDecoder().decode(FoodLogInput.self, from: Data(json.utf8))
        #expect(
            input
                == FoodLogInput(
                    foodID: "f1", foodSource: "barcode", mealType: "breakfast", servings: 1.5,
                    loggedAt: "2026-11-23T08:00:00+01:00", notes: "n"))
        let minimal = try JSONDecoder().decode(
            FoodLogInput.self,
            from: Data(#"{"food_id":"f1","food_source":"custom","meal_type":"snack","servings":1}"#.utf8))
        #expect(minimal.loggedAt == nil && minimal.notes == nil)
        let encoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(input))
        #expect(encoded["food_id"] == .string("f1") && encoded["logged_at"] != nil)
    }

    @Test func anUnknownFoodIsTheUpstreams404() async throws {
        try await Self.withSimulator { sim, context in
            let input = FoodLogInput(
                foodID: UUID().uuidString.lowercased(), foodSource: "database", mealType: "lunch", servings: 1)
            let error = await Self.error { _ = try await FitIQFoodLogs.log(input, context: context) }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .rejected)
            #expect(failure.status == 404)
            #expect(failure.message.contains("food not found"))
            #expect(sim.control.calls(Self.post) == 1)
        }
    }

    @Test func anExpiredTokenIsRefreshedAndTheLogSentOnce() async throws {
        try await Self.withSimulator { sim, context in
            let today = Self.today
            let apple = try await Self.foodID(sim, "Apple")
            let before = try await Self.logs(on: today, context).count
            _ = try await Self.call(sim, .POST, "/_sim/tokens/expire")
            sim.control.resetStats()
            let (log, _) = try await FitIQFoodLogs.log(
                FoodLogInput(
                    foodID: apple, foodSource: "database", mealType: "snack", servings: 1,
                    loggedAt: Self.local(today, 15)),
                context: context)
            #expect(log["id"]?.stringValue != nil)
            // The 401 wrote nothing; after the refresh it is sent again, and stored once.
            #expect(sim.control.calls(Self.post) == 2)
            #expect(sim.control.calls("POST /api/v1/auth/refresh") == 1)
            #expect(try await Self.logs(on: today, context).count == before + 1)
        }
    }

    /// A 500 that stored nothing: not sent again; the day read back once, the log not there, so
    /// the failure stands (and the write's outcome stays unknown to the gateway).
    @Test func aServerErrorIsNotRetried() async throws {
        try await Self.withSimulator { sim, context in
            let apple = try await Self.foodID(sim, "Apple")
            // Log in first (a read), so only the write meets the fault.
            let before = try await Self.logs(on: Self.today, context).count
            sim.control.resetStats()
            sim.control.setFaults(SimulatorFaults(errorStatus: 500, method: "POST"))
            let error = await Self.error {
                _ = try await FitIQFoodLogs.log(
                    FoodLogInput(
                        foodID: apple, foodSource: "database", mealType: "snack", servings: 1,
                        loggedAt: Self.local(Self.today, 16)),
                    context: context)
            }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .status)
            #expect(failure.status == 500)
            #expect(sim.control.calls(Self.post) == 1)
            #expect(sim.control.calls("GET /api/v1/food-logs") == 1, "read back once")
            sim.control.clearFaults()
            #expect(try await Self.logs(on: Self.today, context).count == before)
        }
    }

    /// FitIQ stored the log and a proxy answered 502: reading the day back finds it, so the
    /// write is answered as done — never sent again, stored once.
    @Test func aLogStoredBeforeA502IsAnsweredAsDone() async throws {
        try await Self.withSimulator { sim, context in
            let apple = try await Self.foodID(sim, "Apple")
            let before = try await Self.logs(on: Self.today, context).count
            sim.control.resetStats()
            sim.control.setFaults(SimulatorFaults(errorStatus: 502, errorAfter: true, method: "POST"))
            let (log, days) = try await FitIQFoodLogs.log(
                FoodLogInput(
                    foodID: apple, foodSource: "database", mealType: "snack", servings: 1.5,
                    loggedAt: Self.local(Self.today, 16),
                    notes: "na de proxy"),
                context: context)
            sim.control.clearFaults()
            #expect(log["id"]?.stringValue != nil)
            #expect(log["servings"]?.numberValue == 1.5)
            #expect(days == [Self.today])
            #expect(sim.control.calls(Self.post) == 1)
            let after = try await Self.logs(on: Self.today, context)
            #expect(after.count == before + 1)
            #expect(after.contains { $0["id"] == log["id"] })
        }
    }

    /// What is read back must be the log sent: another food, meal, serving count, note or time
    /// is not it, nor a log made before the write was sent.
    @Test func onlyTheLogSentMatches() throws {
        let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
        let input = FoodLogInput(
            foodID: "F1", foodSource: "database", mealType: "snack", servings: 2, loggedAt: "2027-01-15T08:00:00Z",
            notes: "n")
        func row(_ changes: [String: JSONValue] = [:], created: TimeInterval = 5) -> JSONValue {
            var o: JSONObject = [
                "id": .string("log"), "food_id": .string("f1"), "food_source": .string("database"),
                "meal_type": .string("snack"), "servings": .int(2), "logged_at": .string("2027-01-15T08:00:00Z"),
                "notes": .string("n"),
                "created_at": .string(LenientDate.format(sentAt.addingTimeInterval(created), in: .gmt)),
            ]
            for (key, value) in changes { o[key] = value }
            return .object(o)
        }
        #expect(FitIQFoodLogReadBack.match([row()], sent: input, sentAt: sentAt) != nil)
        #expect(FitIQFoodLogReadBack.match([row(created: -30)], sent: input, sentAt: sentAt) != nil, "clock slack")
        for other in [
            row(["food_id": .string("f2")]), row(["meal_type": .string("lunch")]), row(["servings": .double(2.5)]),
            row(["notes": .string("m")]), row(["logged_at": .string("2027-01-15T09:00:00Z")]),
            row(["food_source": .string("custom")]), row(created: -600),
        ] {
            #expect(FitIQFoodLogReadBack.match([other], sent: input, sentAt: sentAt) == nil, "\(other)")
        }
        #expect(!BackendError(.rejected, backend: "fitiq", message: "m").mayHaveBeenDone)
        #expect(!BackendError(.rateLimited, backend: "fitiq", message: "m").mayHaveBeenDone)
        #expect(BackendError(.status, backend: "fitiq", message: "m").mayHaveBeenDone)
        #expect(BackendError(.timeout, backend: "fitiq", message: "m").mayHaveBeenDone)
        #expect(!BackendError(.unreachable, backend: "fitiq", message: "m", mayHaveArrived: false).mayHaveBeenDone)
    }

    @Test func notConfigured() async throws {
        let error = await Self.error {
            _ = try await FitIQFoodLogs.log(
                FoodLogInput(
                    foodID: "6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7", foodSource: "custom", mealType: "snack", servings: 1
                ),
                context: Self.context(ProfileConfig()))
        }
        #expect((error as? BackendError)?.kind == .notConfigured)
    }
}
