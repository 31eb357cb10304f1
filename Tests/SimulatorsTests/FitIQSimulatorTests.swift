import AsyncHTTPClient
import Foundation
import Model
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import Simulators

/// Starts a FitIQ simulator (seed day 2026-11-23, Amsterdam) and an HTTP client that does not
/// follow redirects, runs `body`, and always stops both.
private func withFitIQ(
    accessTokenLifetime: TimeInterval = 900,
    refreshTokenLifetime: TimeInterval = 7 * 86_400,
    guideShape: Bool = false,
    clock: FitIQTestClock? = nil,
    _ body: (RunningSimulator, HTTPClient) async throws -> Void
) async throws {
    var options = FitIQSimulator.Options(
        seedDay: testSeedDay, timeZone: testTimeZone, accessTokenLifetime: accessTokenLifetime,
        refreshTokenLifetime: refreshTokenLifetime, guideShape: guideShape
    )
    if let clock { options.clock = { clock.now } }
    try await withSimulator(start: { try await FitIQSimulator(options: options).start() }, body)
}

/// A clock the test moves forward: token lifetimes pass without waiting, and no request of
/// the test can arrive "late" because the machine is busy.
private final class FitIQTestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_795_000_000))

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}

/// Request helpers: the API key always, a bearer token when given.
extension HTTPClient {
    fileprivate func fitiq(
        _ sim: RunningSimulator,
        _ path: String,
        token: String? = nil,
        json: String? = nil,
        apiKey: String? = FitIQSimulator.demoAPIKey
    ) async throws -> SimResponse {
        try await fitiq(.GET, sim, path, token: token, json: json, apiKey: apiKey)
    }

    fileprivate func fitiq(
        _ method: HTTPMethod,
        _ sim: RunningSimulator,
        _ path: String,
        token: String? = nil,
        json: String? = nil,
        apiKey: String? = FitIQSimulator.demoAPIKey
    ) async throws -> SimResponse {
        var headers: [(String, String)] = []
        if let apiKey { headers.append(("X-API-Key", apiKey)) }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await send(method, sim, path, json: json, headers: headers)
    }

    /// Logs in as `email` and returns (access, refresh).
    fileprivate func fitiqLogin(
        _ sim: RunningSimulator,
        email: String = FitIQSimulator.demoEmail,
        password: String = FitIQSimulator.demoPassword
    ) async throws -> (String, String) {
        let r = try await fitiq(
            .POST, sim, "/api/v1/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        let data = try #require(r.object["data"] as? [String: Any], "login failed: \(r.status) \(r.body)")
        return (try #require(data["access_token"] as? String), try #require(data["refresh_token"] as? String))
    }

    fileprivate func fitiqRefresh(_ sim: RunningSimulator, _ refreshToken: String) async throws -> SimResponse {
        try await fitiq(.POST, sim, "/api/v1/auth/refresh", json: #"{"refresh_token":"\#(refreshToken)"}"#)
    }
}

extension SimResponse {
    fileprivate var fitiqData: [String: Any] { (object["data"] as? [String: Any]) ?? [:] }
    fileprivate var fitiqErrorMessage: String? { (object["error"] as? [String: Any])?["message"] as? String }
}

/// Decodes a JWT payload (base64url, no padding).
private func fitiqJWTPayload(_ token: String) -> [String: Any]? {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { return nil }
    var b64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while b64.count % 4 != 0 { b64 += "=" }
    guard let data = Data(base64Encoded: b64) else { return nil }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
}

@Suite("FitIQ simulator")
struct FitIQSimulatorTests {
    static let summaryToday = "/api/v1/food-logs/summary?date=2026-11-23"

    // MARK: - Transport and API key

    @Test func healthIsOpenAndAPIKeyGuardsEverythingElse() async throws {
        try await withFitIQ { sim, client in
            #expect(sim.apiBaseURL == "http://127.0.0.1:\(sim.port)")
            #expect(sim.kind == .fitiq)
            let health = try await client.fitiq(sim, "/health", apiKey: nil)
            #expect(health.status == 200)
            #expect(health.body == #"{"status":"ok"}"#)

            for path in ["/api/v1/auth/login", "/api/v1/food-logs/summary", "/api/v1/nothing"] {
                let missing = try await client.fitiq(.POST, sim, path, json: "{}", apiKey: nil)
                #expect(missing.status == 401)
                #expect(missing.body == #"{"error":{"message":"API key is required"}}"#)
                let wrong = try await client.fitiq(.POST, sim, path, json: "{}", apiKey: "nope")
                #expect(wrong.status == 401)
                #expect(wrong.body == #"{"error":{"message":"Invalid API key"}}"#)
                #expect(wrong.headers["content-type"].first == "application/json; charset=utf-8")
            }
            // The key is checked even with a valid bearer token.
            let (access, _) = try await client.fitiqLogin(sim)
            let noKey = try await client.fitiq(sim, Self.summaryToday, token: access, apiKey: nil)
            #expect(noKey.status == 401)
            #expect(noKey.fitiqErrorMessage == "API key is required")
        }
    }

    @Test func unknownRoutesAndTrailingSlash() async throws {
        try await withFitIQ { sim, client in
            let unknown = try await client.fitiq(sim, "/api/v1/unknown")
            #expect(unknown.status == 404)
            #expect(unknown.body == "404 page not found")
            // No 405: a known path with another method is a 404 too.
            let wrongMethod = try await client.fitiq(.PATCH, sim, "/api/v1/food-logs")
            #expect(wrongMethod.status == 404)
            let slash = try await client.fitiq(sim, "/api/v1/workouts/?limit=2")
            #expect(slash.status == 301)
            #expect(slash.headers["location"].first == "/api/v1/workouts?limit=2")
            let postSlash = try await client.fitiq(.POST, sim, "/api/v1/auth/login/", json: "{}")
            #expect(postSlash.status == 307)
            #expect(postSlash.headers["location"].first == "/api/v1/auth/login")
        }
    }

    // MARK: - Login and bearer tokens

    @Test func loginReturnsJWTAndRefreshToken() async throws {
        try await withFitIQ { sim, client in
            let r = try await client.fitiq(
                .POST, sim, "/api/v1/auth/login",
                json: #"{"email":"Anna@Example.org","password":"\#(FitIQSimulator.demoPassword)"}"#
            )
            #expect(r.status == 200)
            #expect(r.object.keys.sorted() == ["data"])
            #expect(r.fitiqData.keys.sorted() == ["access_token", "refresh_token"])
            let access = try #require(r.fitiqData["access_token"] as? String)
            let refresh = try #require(r.fitiqData["refresh_token"] as? String)
            #expect(access.hasPrefix("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."))
            let payload = try #require(fitiqJWTPayload(access))
            let exp = try #require(payload["exp"] as? Int)
            let now = Int(Date().timeIntervalSince1970)
            #expect(abs(exp - (now + 900)) <= 2)
            #expect(payload["sub"] as? String == FitIQSeed.userID(email: FitIQSimulator.demoEmail))
            #expect(refresh.count == 64)
            #expect(refresh.allSatisfy { $0.isHexDigit })

            let ok = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(ok.status == 200)

            let auth = try await client.send(sim, "/_sim/auth")
            #expect(auth.body == #"{"logins":1,"refreshes":0,"rejected_refreshes":0}"#)
        }
    }

    @Test func loginRejectsBadCredentialsAndBodies() async throws {
        try await withFitIQ { sim, client in
            let wrong = try await client.fitiq(
                .POST, sim, "/api/v1/auth/login", json: #"{"email":"anna@example.org","password":"x"}"#)
            #expect(wrong.status == 401)
            #expect(wrong.body == #"{"error":{"message":"invalid email or password"}}"#)
            let unknown = try await client.fitiq(
                .POST, sim, "/api/v1/auth/login", json: #"{"email":"eve@example.org","password":"x"}"#)
            #expect(unknown.status == 401)
            let missing = try await client.fitiq(
                .POST, sim, "/api/v1/auth/login", json: #"{"email":"anna@example.org"}"#)
            #expect(missing.status == 400)
            let notJSON = try await client.fitiq(.POST, sim, "/api/v1/auth/login", json: "{oops")
            #expect(notJSON.status == 400)
            #expect(notJSON.fitiqErrorMessage == "invalid request body")
            let wrongType = try await client.fitiq(
                .POST, sim, "/api/v1/auth/login", json: #"{"email":1,"password":"x"}"#)
            #expect(wrongType.status == 400)
            let auth = try await client.send(sim, "/_sim/auth")
            #expect(auth.object["logins"] as? Int == 0)
        }
    }

    @Test func bearerTokenIsRequiredOnUserRoutes() async throws {
        try await withFitIQ { sim, client in
            let expected = #"{"error":{"message":"Invalid authentication"}}"#
            let none = try await client.fitiq(sim, Self.summaryToday)
            #expect(none.status == 401)
            #expect(none.body == expected)
            let garbage = try await client.fitiq(sim, Self.summaryToday, token: "not-a-token")
            #expect(garbage.status == 401)
            #expect(garbage.body == expected)
            // A well-formed JWT the server never issued is rejected too (lookup, not signature).
            let (access, refresh) = try await client.fitiqLogin(sim)
            let parts = access.split(separator: ".")
            let forged = parts[0] + "." + parts[1] + ".AAAA"
            let forgedResponse = try await client.fitiq(sim, Self.summaryToday, token: String(forged))
            #expect(forgedResponse.status == 401)
            // The refresh token is not an access token.
            let wrongKind = try await client.fitiq(sim, Self.summaryToday, token: refresh)
            #expect(wrongKind.status == 401)
            // "Token" instead of "Bearer".
            let scheme = try await client.send(
                .GET, sim, "/api/v1/workouts",
                headers: [("X-API-Key", FitIQSimulator.demoAPIKey), ("Authorization", "Token \(access)")]
            )
            #expect(scheme.status == 401)
        }
    }

    @Test func accessTokenExpires() async throws {
        let clock = FitIQTestClock()
        try await withFitIQ(accessTokenLifetime: 900, clock: clock) { sim, client in
            let (access, refresh) = try await client.fitiqLogin(sim)
            let payload = try #require(fitiqJWTPayload(access))
            let exp = try #require(payload["exp"] as? Int)
            #expect(exp == Int(clock.now.timeIntervalSince1970) + 900)
            clock.advance(by: 899)
            #expect(try await client.fitiq(sim, Self.summaryToday, token: access).status == 200)
            clock.advance(by: 1)
            let expired = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(expired.status == 401)
            #expect(expired.body == #"{"error":{"message":"Invalid authentication"}}"#)
            // Reactive refresh works and gives a working token.
            let refreshed = try await client.fitiqRefresh(sim, refresh)
            #expect(refreshed.status == 200)
            let newAccess = try #require(refreshed.fitiqData["access_token"] as? String)
            #expect(newAccess != access)
            #expect(try await client.fitiq(sim, Self.summaryToday, token: newAccess).status == 200)
        }
    }

    @Test func simExpireKillsCurrentAccessTokens() async throws {
        try await withFitIQ { sim, client in
            let (access, refresh) = try await client.fitiqLogin(sim)
            let (access2, _) = try await client.fitiqLogin(sim, email: "bas@example.org", password: "Bas-Demo-2025!")
            let expire = try await client.send(.POST, sim, "/_sim/tokens/expire")
            #expect(expire.status == 200)
            #expect(expire.body == #"{"expired":2}"#)
            #expect(try await client.fitiq(sim, "/api/v1/workouts", token: access).status == 401)
            #expect(try await client.fitiq(sim, "/api/v1/workouts", token: access2).status == 401)
            // Refresh tokens survive; tokens issued afterwards are fine.
            let refreshed = try await client.fitiqRefresh(sim, refresh)
            #expect(refreshed.status == 200)
            let fresh = try #require(refreshed.fitiqData["access_token"] as? String)
            #expect(try await client.fitiq(sim, "/api/v1/workouts", token: fresh).status == 200)
            let again = try await client.send(.POST, sim, "/_sim/tokens/expire")
            #expect(again.body == #"{"expired":1}"#)
        }
    }

    // MARK: - Refresh rotation

    @Test func refreshTokensAreSingleUseAndReuseRevokesTheFamily() async throws {
        try await withFitIQ { sim, client in
            let (_, first) = try await client.fitiqLogin(sim)
            let (_, otherFamily) = try await client.fitiqLogin(sim)

            let rotated = try await client.fitiqRefresh(sim, first)
            #expect(rotated.status == 200)
            #expect(rotated.object.keys.sorted() == ["data"])
            let second = try #require(rotated.fitiqData["refresh_token"] as? String)
            let secondAccess = try #require(rotated.fitiqData["access_token"] as? String)
            #expect(second != first)

            // Reuse: 401 with the contract's body, and the rotated token dies with it.
            let reuse = try await client.fitiqRefresh(sim, first)
            #expect(reuse.status == 401)
            #expect(reuse.body == #"{"error":{"message":"refresh token has been revoked"}}"#)
            let afterReuse = try await client.fitiqRefresh(sim, second)
            #expect(afterReuse.status == 401)
            #expect(afterReuse.fitiqErrorMessage == "refresh token has been revoked")
            // Issued access tokens stay valid until they expire.
            #expect(try await client.fitiq(sim, "/api/v1/workouts", token: secondAccess).status == 200)
            // Another login's family is untouched.
            #expect(try await client.fitiqRefresh(sim, otherFamily).status == 200)

            let auth = try await client.send(sim, "/_sim/auth")
            #expect(auth.body == #"{"logins":2,"refreshes":2,"rejected_refreshes":2}"#)
        }
    }

    @Test func concurrentRefreshesWithOneTokenLetExactlyOneThrough() async throws {
        try await withFitIQ { sim, client in
            let (_, refresh) = try await client.fitiqLogin(sim)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<5 {
                    group.addTask { try await client.fitiqRefresh(sim, refresh).status }
                }
                var all: [Int] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 401 }.count == 4)
            let auth = try await client.send(sim, "/_sim/auth")
            #expect(auth.object["refreshes"] as? Int == 1)
            #expect(auth.object["rejected_refreshes"] as? Int == 4)
        }
    }

    @Test func refreshRejectsUnknownExpiredAndMalformed() async throws {
        let clock = FitIQTestClock()
        try await withFitIQ(refreshTokenLifetime: 60, clock: clock) { sim, client in
            let unknown = try await client.fitiqRefresh(sim, String(repeating: "ab", count: 32))
            #expect(unknown.status == 401)
            #expect(unknown.body == #"{"error":{"message":"invalid refresh token"}}"#)
            let missing = try await client.fitiq(.POST, sim, "/api/v1/auth/refresh", json: "{}")
            #expect(missing.status == 400)
            #expect(missing.fitiqErrorMessage == "refresh_token is required")
            let noBody = try await client.fitiq(.POST, sim, "/api/v1/auth/refresh")
            #expect(noBody.status == 400)
            // Refresh also needs the API key.
            let (_, refresh) = try await client.fitiqLogin(sim)
            let noKey = try await client.fitiq(
                .POST, sim, "/api/v1/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#, apiKey: nil)
            #expect(noKey.status == 401)
            clock.advance(by: 60)
            let expired = try await client.fitiqRefresh(sim, refresh)
            #expect(expired.status == 401)
            #expect(expired.fitiqErrorMessage == "refresh token has expired")
            let auth = try await client.send(sim, "/_sim/auth")
            #expect(auth.object["rejected_refreshes"] as? Int == 2)
        }
    }

    @Test func registerCreatesAUserWithoutGoal() async throws {
        try await withFitIQ { sim, client in
            let body =
                #"{"email":"noor@example.org","password":"Secret-123","name":"Noor","date_of_birth":"1994-05-15"}"#
            let created = try await client.fitiq(.POST, sim, "/api/v1/auth/register", json: body)
            #expect(created.status == 201)
            #expect(created.fitiqData["email"] as? String == "noor@example.org")
            let access = try #require(created.fitiqData["access_token"] as? String)
            #expect((created.fitiqData["user_id"] as? String)?.count == 36)
            let summary = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(summary.fitiqData["calorie_goal"] as? Int == 0)
            #expect(summary.fitiqData["remaining_cals"] as? Int == 0)
            #expect(summary.fitiqData["log_count"] as? Int == 0)
            let again = try await client.fitiq(.POST, sim, "/api/v1/auth/register", json: body)
            #expect(again.status == 409)
            let young = try await client.fitiq(
                .POST, sim, "/api/v1/auth/register",
                json: #"{"email":"kid@example.org","password":"Secret-123","name":"Kid","date_of_birth":"2020-01-01"}"#
            )
            #expect(young.status == 400)
            // The new account can log in.
            _ = try await client.fitiqLogin(sim, email: "noor@example.org", password: "Secret-123")
        }
    }

    // MARK: - Nutrition

    @Test func summaryForTheSeedDay() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let r = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(r.status == 200)
            #expect(
                r.body
                    == #"{"data":{"date":"2026-11-23","total_calories":1060,"total_protein_g":44.8,"total_carbs_g":141,"total_fat_g":34.4,"log_count":6,"breakfast_logs":3,"lunch_logs":2,"dinner_logs":0,"snack_logs":1,"calorie_goal":2200,"remaining_cals":1140}}"#
            )
            // A day before: four meals logged.
            let yesterday = try await client.fitiq(sim, "/api/v1/food-logs/summary?date=2026-11-22", token: access)
            #expect(yesterday.fitiqData["dinner_logs"] as? Int == 1)
            #expect(yesterday.fitiqData["log_count"] as? Int == 6)
            // A day without logs still reports the goal.
            let empty = try await client.fitiq(sim, "/api/v1/food-logs/summary?date=2026-12-25", token: access)
            #expect(
                empty.body
                    == #"{"data":{"date":"2026-12-25","total_calories":0,"total_protein_g":0,"total_carbs_g":0,"total_fat_g":0,"log_count":0,"breakfast_logs":0,"lunch_logs":0,"dinner_logs":0,"snack_logs":0,"calorie_goal":2200,"remaining_cals":2200}}"#
            )
            let bad = try await client.fitiq(sim, "/api/v1/food-logs/summary?date=23-11-2026", token: access)
            #expect(bad.status == 400)
            #expect(bad.body == #"{"error":{"message":"invalid date format, expected YYYY-MM-DD"}}"#)
            // Without a date: today (UTC) — not the seed day, so no seeded meals.
            let today = try await client.fitiq(sim, "/api/v1/food-logs/summary", token: access)
            #expect(today.status == 200)
            #expect(
                today.fitiqData["date"] as? String
                    == LocalDate(dayNumber: FitIQFormat.utcDay(FitIQFormat.nowMicros(Date().timeIntervalSince1970)))
                    .description)
        }
    }

    /// FitIQ's days are UTC days: a meal at 23:30 UTC and one at 00:30 UTC the next day are on
    /// two days, whatever the household's zone (Amsterdam here, where both are on the 24th).
    @Test func daysAreUTCDays() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let search = try await client.fitiq(sim, "/api/v1/foods/search?q=Apple")
            let apple = try #require((search.fitiqData["foods"] as? [[String: Any]])?.first?["id"] as? String)
            let before = try await client.fitiq(sim, "/api/v1/food-logs/summary?date=2026-12-01", token: access)
            #expect(before.fitiqData["log_count"] as? Int == 0)
            for at in ["2026-12-01T23:30:00Z", "2026-12-02T00:30:00+01:00", "2026-12-02T00:30:00Z"] {
                let logged = try await client.fitiq(
                    .POST, sim, "/api/v1/food-logs", token: access,
                    json:
                        #"{"food_id":"\#(apple)","food_source":"database","meal_type":"snack","servings":1,"logged_at":"\#(at)"}"#
                )
                #expect(logged.status == 201)
            }
            // 23:30Z and 00:30+01:00 (23:30Z) are on the 1st, 00:30Z on the 2nd.
            let first = try await client.fitiq(sim, "/api/v1/food-logs/summary?date=2026-12-01", token: access)
            #expect(first.fitiqData["log_count"] as? Int == 2)
            #expect(first.fitiqData["total_calories"] as? Int == 190)
            let second = try await client.fitiq(sim, "/api/v1/food-logs/summary?date=2026-12-02", token: access)
            #expect(second.fitiqData["log_count"] as? Int == 1)
            let list = try await client.fitiq(
                sim, "/api/v1/food-logs?start_date=2026-12-02&end_date=2026-12-02", token: access)
            #expect(
                (list.fitiqData["logs"] as? [[String: Any]])?.compactMap { $0["logged_at"] as? String } == [
                    "2026-12-02T00:30:00Z"
                ])
        }
    }

    @Test func summaryInTheGuideShape() async throws {
        try await withFitIQ(guideShape: true) { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let r = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(r.status == 200)
            #expect(r.object["success"] as? Bool == true)
            #expect(r.object["error"] is NSNull)
            #expect(r.fitiqData["totalCalories"] as? Int == 1060)
            #expect(r.fitiqData["totalProteinG"] as? Double == 44.8)
            #expect(r.fitiqData["totalFiberG"] as? Double == 15.1)
            let breakdown = try #require(r.fitiqData["mealBreakdown"] as? [String: [String: Any]])
            #expect(breakdown.keys.sorted() == ["breakfast", "lunch", "snack"])
            #expect(breakdown["breakfast"]?["itemCount"] as? Int == 3)
            #expect(breakdown["breakfast"]?["calories"] as? Int == 430)
            #expect(r.fitiqData["total_calories"] == nil)

            // Switch back at runtime.
            let switched = try await client.send(.POST, sim, "/_sim/options", json: #"{"guide_shape":false}"#)
            #expect(switched.object["guide_shape"] as? Bool == false)
            let contract = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(contract.object["success"] == nil)
            #expect(contract.fitiqData["total_calories"] as? Int == 1060)
            let bad = try await client.send(.POST, sim, "/_sim/options", json: #"{"guide_shape":"yes"}"#)
            #expect(bad.status == 400)
        }
    }

    @Test func listFoodLogsByDayRangeAndMeal() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let today = try await client.fitiq(
                sim, "/api/v1/food-logs?start_date=2026-11-23&end_date=2026-11-23", token: access)
            #expect(today.status == 200)
            #expect(today.fitiqData.keys.sorted() == ["logs", "total"])
            let logs = try #require(today.fitiqData["logs"] as? [[String: Any]])
            #expect(logs.count == 6)
            #expect(today.fitiqData["total"] as? Int == 6)
            // Newest first; times are UTC (Amsterdam is UTC+1 in November).
            #expect(logs.first?["meal_type"] as? String == "snack")
            #expect(logs.first?["logged_at"] as? String == "2026-11-23T14:30:00Z")
            let keys = [
                "id", "user_id", "food_id", "food_source", "meal_type", "servings", "logged_at", "created_at",
                "updated_at",
            ]
            #expect(Set(logs[0].keys) == Set(keys))
            #expect(logs.contains { $0["notes"] as? String == "Office canteen" })
            #expect(today.body.contains(#""servings":1,"#))

            let lunches = try await client.fitiq(
                sim, "/api/v1/food-logs?start_date=2026-11-17&end_date=2026-11-23&meal_type=lunch", token: access)
            #expect(lunches.fitiqData["total"] as? Int == 14)
            let all = try await client.fitiq(sim, "/api/v1/food-logs", token: access)
            #expect(all.fitiqData["total"] as? Int == 42)
            #expect(all.body.contains(#""servings":0.5"#))
            #expect(all.body.contains(#""food_source":"custom""#))
            #expect(all.body.contains(#""food_source":"barcode""#))

            let badMeal = try await client.fitiq(sim, "/api/v1/food-logs?meal_type=brunch", token: access)
            #expect(badMeal.status == 400)
            let badDate = try await client.fitiq(
                sim, "/api/v1/food-logs?start_date=2026-11-23T00:00:00Z", token: access)
            #expect(badDate.status == 400)
            #expect(badDate.fitiqErrorMessage == "invalid start_date format, expected YYYY-MM-DD")

            // Each user sees only their own logs.
            let (bas, _) = try await client.fitiqLogin(sim, email: "bas@example.org", password: "Bas-Demo-2025!")
            let basLogs = try await client.fitiq(sim, "/api/v1/food-logs", token: bas)
            #expect(basLogs.fitiqData["total"] as? Int == 1)
        }
    }

    @Test func foodCatalogNeedsOnlyTheAPIKey() async throws {
        try await withFitIQ { sim, client in
            let oatmeal = FitIQSeed.foodID("oatmeal")
            let food = try await client.fitiq(sim, "/api/v1/foods/\(oatmeal)")
            #expect(food.status == 200)
            #expect(food.fitiqData["name"] as? String == "Oatmeal with semi-skimmed milk")
            #expect(food.fitiqData["calories"] as? Int == 290)
            #expect(food.fitiqData["user_id"] == nil)
            let search = try await client.fitiq(sim, "/api/v1/foods/search?q=soup")
            #expect(search.fitiqData["total"] as? Int == 1)
            let barcode = try await client.fitiq(sim, "/api/v1/foods/barcode/8710000123456")
            #expect(barcode.fitiqData["brand"] as? String == "Daelmans")
            let missing = try await client.fitiq(sim, "/api/v1/foods/00000000-0000-4000-8000-000000000000")
            #expect(missing.status == 404)
            #expect(missing.body == #"{"error":{"message":"food not found"}}"#)
            #expect(try await client.fitiq(sim, "/api/v1/foods/\(oatmeal)", apiKey: nil).status == 401)
        }
    }

    @Test func logFoodThenDeleteIt() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let pasta = FitIQSeed.foodID("pasta")
            let created = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs", token: access,
                json:
                    #"{"food_id":"\#(pasta)","food_source":"database","meal_type":"dinner","servings":1.5,"logged_at":"2026-11-23T19:00:00+01:00"}"#
            )
            #expect(created.status == 201)
            #expect(created.fitiqData["logged_at"] as? String == "2026-11-23T18:00:00Z")
            #expect(created.fitiqData["servings"] as? Double == 1.5)
            #expect(created.fitiqData["notes"] == nil)
            let id = try #require(created.fitiqData["id"] as? String)

            let summary = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(summary.fitiqData["dinner_logs"] as? Int == 1)
            #expect(summary.fitiqData["total_calories"] as? Int == 1060 + 1020)
            #expect(summary.fitiqData["remaining_cals"] as? Int == 2200 - 2080)

            // Over the goal: remaining goes negative.
            let more = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs", token: access,
                json:
                    #"{"food_id":"\#(pasta)","food_source":"database","meal_type":"dinner","servings":1,"logged_at":"2026-11-23T20:00:00Z"}"#
            )
            #expect(more.status == 201)
            let over = try await client.fitiq(sim, Self.summaryToday, token: access)
            #expect(over.fitiqData["remaining_cals"] as? Int == 2200 - 2760)

            let unknownFood = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs", token: access,
                json:
                    #"{"food_id":"00000000-0000-4000-8000-000000000000","food_source":"database","meal_type":"dinner","servings":1}"#
            )
            #expect(unknownFood.status == 404)
            #expect(unknownFood.body == #"{"error":{"message":"food not found"}}"#)
            let badMeal = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs", token: access,
                json: #"{"food_id":"\#(pasta)","food_source":"database","meal_type":"supper","servings":1}"#
            )
            #expect(badMeal.status == 400)
            let badServings = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs", token: access,
                json: #"{"food_id":"\#(pasta)","food_source":"database","meal_type":"dinner","servings":0}"#
            )
            #expect(badServings.status == 400)
            let badTime = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs", token: access,
                json:
                    #"{"food_id":"\#(pasta)","food_source":"database","meal_type":"dinner","servings":1,"logged_at":"2026-11-23"}"#
            )
            #expect(badTime.status == 400)
            let noAuth = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs",
                json: #"{"food_id":"\#(pasta)","food_source":"database","meal_type":"dinner","servings":1}"#
            )
            #expect(noAuth.status == 401)
            // Someone else's custom food is not found.
            let (bas, _) = try await client.fitiqLogin(sim, email: "bas@example.org", password: "Bas-Demo-2025!")
            let foreign = try await client.fitiq(
                .POST, sim, "/api/v1/food-logs", token: bas,
                json:
                    #"{"food_id":"\#(FitIQSeed.foodID("overnight_oats"))","food_source":"custom","meal_type":"breakfast","servings":1}"#
            )
            #expect(foreign.status == 404)

            // Delete: 403 for another user's log, 204, then 404.
            let forbidden = try await client.fitiq(.DELETE, sim, "/api/v1/food-logs/\(id)", token: bas)
            #expect(forbidden.status == 403)
            let deleted = try await client.fitiq(.DELETE, sim, "/api/v1/food-logs/\(id)", token: access)
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            let gone = try await client.fitiq(.DELETE, sim, "/api/v1/food-logs/\(id)", token: access)
            #expect(gone.status == 404)
        }
    }

    // MARK: - Workouts

    @Test func workoutsArePaginatedNewestFirst() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let all = try await client.fitiq(sim, "/api/v1/workouts", token: access)
            #expect(all.status == 200)
            #expect(all.fitiqData["total"] as? Int == 6)
            #expect(all.fitiqData["limit"] as? Int == 20)
            #expect(all.fitiqData["has_more"] as? Bool == false)
            let workouts = try #require(all.fitiqData["workouts"] as? [[String: Any]])
            #expect(workouts.first?["activity_type"] as? String == "walking")
            #expect(workouts.first?["started_at"] as? String == "2026-11-23T11:55:00Z")
            #expect(workouts.contains { $0["title"] == nil && $0["activity_type"] as? String == "yoga" })
            #expect(all.body.contains(#""distance_meters":5900.5"#))

            let page = try await client.fitiq(sim, "/api/v1/workouts?limit=2&offset=2", token: access)
            #expect((page.fitiqData["workouts"] as? [Any])?.count == 2)
            #expect(page.fitiqData["has_more"] as? Bool == true)
            #expect(page.fitiqData["offset"] as? Int == 2)
            let tooMany = try await client.fitiq(sim, "/api/v1/workouts?limit=101", token: access)
            #expect(tooMany.status == 400)

            let running = try await client.fitiq(sim, "/api/v1/workouts/activity/running", token: access)
            #expect(running.fitiqData["total"] as? Int == 2)

            let id = try #require(workouts.first?["id"] as? String)
            let one = try await client.fitiq(sim, "/api/v1/workouts/\(id)", token: access)
            #expect(one.status == 200)
            #expect(one.fitiqData["id"] as? String == id)
            // Another user's workout is not found.
            let (bas, _) = try await client.fitiqLogin(sim, email: "bas@example.org", password: "Bas-Demo-2025!")
            #expect(try await client.fitiq(sim, "/api/v1/workouts/\(id)", token: bas).status == 404)
        }
    }

    @Test func dateRangeNeedsRFC3339() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let range = try await client.fitiq(
                sim, "/api/v1/workouts/date-range?start_date=2026-11-20T23:00:00Z&end_date=2026-11-23T22:59:59Z",
                token: access
            )
            #expect(range.status == 200)
            let types = (range.fitiqData["workouts"] as? [[String: Any]] ?? []).compactMap {
                $0["activity_type"] as? String
            }
            #expect(types == ["walking", "yoga", "running"])
            let offset = try await client.fitiq(
                sim,
                "/api/v1/workouts/date-range?start_date=2026-11-23T00:00:00%2B01:00&end_date=2026-11-23T23:59:59%2B01:00",
                token: access
            )
            #expect((offset.fitiqData["workouts"] as? [Any])?.count == 1)
            let dateOnly = try await client.fitiq(
                sim, "/api/v1/workouts/date-range?start_date=2026-11-17&end_date=2026-11-23", token: access)
            #expect(dateOnly.status == 400)
            #expect(dateOnly.body == #"{"error":{"message":"invalid start_date format, expected RFC3339"}}"#)
            let missing = try await client.fitiq(sim, "/api/v1/workouts/date-range", token: access)
            #expect(missing.status == 400)
            #expect(missing.fitiqErrorMessage == "start_date and end_date are required")
        }
    }

    @Test func createUpdateDeleteWorkout() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let missing = try await client.fitiq(
                .POST, sim, "/api/v1/workouts", token: access, json: #"{"activity_type":"running"}"#)
            #expect(missing.status == 400)
            #expect(missing.fitiqErrorMessage == "started_at is required")
            let created = try await client.fitiq(
                .POST, sim, "/api/v1/workouts", token: access,
                json: #"{"activity_type":"rowing","started_at":"2026-11-23T17:00:00Z","intensity":5}"#
            )
            #expect(created.status == 201)
            #expect(created.fitiqData["ended_at"] == nil)
            let id = try #require(created.fitiqData["id"] as? String)
            let updated = try await client.fitiq(
                .PUT, sim, "/api/v1/workouts/\(id)", token: access,
                json: #"{"ended_at":"2026-11-23T17:30:00Z","duration_minutes":30,"title":"Erg"}"#
            )
            #expect(updated.status == 200)
            #expect(updated.fitiqData["duration_minutes"] as? Int == 30)
            #expect(updated.fitiqData["activity_type"] as? String == "rowing")
            let badIntensity = try await client.fitiq(
                .PUT, sim, "/api/v1/workouts/\(id)", token: access, json: #"{"intensity":11}"#)
            #expect(badIntensity.status == 400)
            #expect(try await client.fitiq(.DELETE, sim, "/api/v1/workouts/\(id)", token: access).status == 204)
            #expect(try await client.fitiq(sim, "/api/v1/workouts/\(id)", token: access).status == 404)
        }
    }

    // MARK: - Sleep

    @Test func sleepSessionsWithAverages() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            // Last night started on the 22nd (local and UTC), so it is filed under the 22nd.
            let lastNight = try await client.fitiq(sim, "/api/v1/sleep?from=2026-11-22&to=2026-11-22", token: access)
            #expect(lastNight.status == 200)
            let sessions = try #require(lastNight.fitiqData["sessions"] as? [[String: Any]])
            #expect(sessions.count == 1)
            let session = try #require(sessions.first)
            #expect(session["start_time"] as? String == "2026-11-22T21:40:00Z")
            #expect(session["end_time"] as? String == "2026-11-23T05:45:00Z")
            #expect(session["time_in_bed_minutes"] as? Int == 485)
            #expect(session["total_sleep_minutes"] as? Int == 467)
            #expect(session["source"] as? String == "healthkit")
            #expect(session["source_id"] as? String == "HK-SLEEP-20261123")
            let efficiency = try #require(session["sleep_efficiency_percentage"] as? Double)
            #expect(abs(efficiency - 467.0 / 485.0 * 100) < 1e-9)
            let minutes = ["awake_minutes", "rem_minutes", "core_minutes", "deep_minutes"].compactMap {
                session[$0] as? Int
            }
            #expect(minutes.reduce(0, +) == 485)
            let averages = try #require(lastNight.fitiqData["averages"] as? [String: Any])
            #expect(averages["avg_total_sleep_minutes"] as? Int == 467)
            #expect(
                lastNight.fitiqData.keys.sorted() == ["averages", "has_more", "limit", "offset", "sessions", "total"])
            #expect(lastNight.fitiqData["limit"] as? Int == 30)

            let today = try await client.fitiq(sim, "/api/v1/sleep?from=2026-11-23&to=2026-11-23", token: access)
            #expect(today.fitiqData["total"] as? Int == 0)
            #expect(today.fitiqData["averages"] is NSNull)
            #expect(today.body.contains(#""averages":null"#))

            let fortnight = try await client.fitiq(
                sim, "/api/v1/sleep?from=2026-11-01&to=2026-11-30&limit=5", token: access)
            #expect(fortnight.fitiqData["total"] as? Int == 14)
            #expect((fortnight.fitiqData["sessions"] as? [Any])?.count == 5)
            #expect(fortnight.fitiqData["has_more"] as? Bool == true)
            let starts = (fortnight.fitiqData["sessions"] as? [[String: Any]] ?? []).compactMap {
                $0["start_time"] as? String
            }
            #expect(starts == starts.sorted(by: >))

            let bad = try await client.fitiq(sim, "/api/v1/sleep?from=yesterday", token: access)
            #expect(bad.status == 400)
        }
    }

    @Test func sleepPostIsIdempotentBySourceID() async throws {
        try await withFitIQ { sim, client in
            let (access, _) = try await client.fitiqLogin(sim)
            let body = #"""
                {"start_time":"2026-11-23T22:00:00Z","end_time":"2026-11-24T06:00:00Z","source":"healthkit","source_id":"HK-1",
                 "stages":[{"stage":"deep","start_time":"2026-11-24T00:00:00Z","end_time":"2026-11-24T01:00:00Z"},
                           {"stage":"core","start_time":"2026-11-23T22:30:00Z","end_time":"2026-11-24T00:00:00Z"},
                           {"stage":"awake","start_time":"2026-11-23T22:00:00Z","end_time":"2026-11-23T22:30:00Z"}]}
                """#
            let first = try await client.fitiq(.POST, sim, "/api/v1/sleep", token: access, json: body)
            #expect(first.status == 201)
            #expect(first.fitiqData["time_in_bed_minutes"] as? Int == 480)
            #expect(first.fitiqData["total_sleep_minutes"] as? Int == 150)
            #expect(first.fitiqData["awake_minutes"] as? Int == 30)
            let again = try await client.fitiq(.POST, sim, "/api/v1/sleep", token: access, json: body)
            #expect(again.status == 200)
            #expect(again.fitiqData["id"] as? String == first.fitiqData["id"] as? String)
            let overlap = try await client.fitiq(
                .POST, sim, "/api/v1/sleep", token: access,
                json:
                    #"{"start_time":"2026-11-23T22:00:00Z","end_time":"2026-11-24T06:00:00Z","stages":[{"stage":"deep","start_time":"2026-11-24T00:00:00Z","end_time":"2026-11-24T01:00:00Z"},{"stage":"rem","start_time":"2026-11-24T00:30:00Z","end_time":"2026-11-24T01:30:00Z"}]}"#
            )
            #expect(overlap.status == 400)
            let backwards = try await client.fitiq(
                .POST, sim, "/api/v1/sleep", token: access,
                json: #"{"start_time":"2026-11-24T06:00:00Z","end_time":"2026-11-23T22:00:00Z"}"#
            )
            #expect(backwards.status == 400)
        }
    }

    // MARK: - Simulator controls

    @Test func faultsUseTheErrorShape() async throws {
        try await withFitIQ { sim, client in
            sim.control.setFaults(SimulatorFaults(errorStatus: 503))
            let r = try await client.fitiq(sim, "/api/v1/workouts")
            #expect(r.status == 503)
            #expect(r.body == #"{"error":{"message":"simulated failure"}}"#)
            sim.control.clearFaults()
            #expect(sim.control.calls("GET /api/v1/workouts") == 1)
            let listing = try await client.send(sim, "/_sim")
            #expect(listing.body.contains("POST /_sim/tokens/expire"))
        }
    }

    @Test func resetRestoresTheSeedAndForgetsTokens() async throws {
        try await withFitIQ { sim, client in
            let (access, refresh) = try await client.fitiqLogin(sim)
            let created = try await client.fitiq(
                .POST, sim, "/api/v1/workouts", token: access,
                json: #"{"activity_type":"rowing","started_at":"2026-11-23T17:00:00Z"}"#
            )
            #expect(created.status == 201)
            let reset = try await client.send(.POST, sim, "/_sim/reset")
            #expect(reset.body == #"{"users":2,"food_logs":43,"workouts":7,"sleep_sessions":14,"meal_logs":1}"#)
            #expect(try await client.fitiq(sim, "/api/v1/workouts", token: access).status == 401)
            #expect(try await client.fitiqRefresh(sim, refresh).status == 401)
            let auth = try await client.send(sim, "/_sim/auth")
            #expect(auth.body == #"{"logins":0,"refreshes":0,"rejected_refreshes":1}"#)
            let (fresh, _) = try await client.fitiqLogin(sim)
            let workouts = try await client.fitiq(sim, "/api/v1/workouts", token: fresh)
            #expect(workouts.fitiqData["total"] as? Int == 6)
        }
    }

    @Test func seedIsDeterministic() throws {
        let options = FitIQSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone)
        func ids(_ store: FitIQStore) -> [String] {
            store.withState { s in
                s.foodLogs.map(\.id) + s.workouts.map(\.id) + s.sleepSessions.map(\.id) + s.users.map(\.id)
                    + s.foods.map(\.id)
            }
        }
        let a = ids(try FitIQStore(options: options))
        let b = ids(try FitIQStore(options: options))
        #expect(a == b)
        #expect(Set(a).count == a.count)
        // Another seed day moves logs, workouts and nights, but users and foods keep their ids.
        let other = try FitIQStore(options: .init(seedDay: "2026-11-24", timeZone: testTimeZone))
        let otherLogs = other.withState { $0.foodLogs.map(\.id) }
        #expect(Set(otherLogs).isDisjoint(with: a))
        #expect(
            other.withState { $0.users.map(\.id) } == FitIQSimulator.demoUsers.map { FitIQSeed.userID(email: $0.email) }
        )
        #expect(throws: SimulatorError.self) { try FitIQStore(options: .init(seedDay: "2026-02-30")) }
    }

    @Test func formatsLikeGo() {
        #expect(
            FitIQFormat.time(Civil.micros(year: 2026, month: 11, day: 23, hour: 6, minute: 45))
                == "2026-11-23T06:45:00Z")
        #expect(
            FitIQFormat.time(Civil.micros(year: 2026, month: 11, day: 23, micro: 120_000)) == "2026-11-23T00:00:00.12Z")
        #expect(FitIQFormat.number(12) == .int(12))
        #expect(FitIQFormat.number(31.5) == .double(31.5))
        #expect(
            FitIQFormat.parseRFC3339("2026-11-23T09:00:00+01:00")
                == Civil.micros(year: 2026, month: 11, day: 23, hour: 8))
        #expect(
            FitIQFormat.parseRFC3339("2026-11-23T09:00:00.123456789Z")
                == Civil.micros(year: 2026, month: 11, day: 23, hour: 9, micro: 123_456))
        #expect(FitIQFormat.parseRFC3339("2026-11-23T09:00:00") == nil)
        #expect(FitIQFormat.parseRFC3339("2026-11-23 09:00:00Z") == nil)
        #expect(FitIQFormat.parseRFC3339("2026-11-23") == nil)
    }
}
