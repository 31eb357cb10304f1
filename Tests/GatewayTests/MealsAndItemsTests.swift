import Backends
import Foundation
import Gateway
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Testing

@testable import daygate

/// The routes with path parameters and the meal calls against the simulators: a saved item by
/// id, FitIQ's food search and barcode lookup, and deleting a food log.
@Suite("Saved items and meals")
struct MealsAndItemsTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    /// Every call the simulator has had, whatever its path.
    static func allCalls(_ demo: DemoHarness, _ kind: SimulatorKind) -> Int {
        demo.simulator(kind).control.callCounts.values.reduce(0, +)
    }

    @Test func aSavedItemByIDIsAnsweredCachedAnd404WhenMissing() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let recent = try await client.execute(uri: "/v1/knowledge/recent?limit=1", method: .get).json
                let id = try #require(recent["items"]?.arrayValue?.first?["id"]?.stringValue, "\(recent)")

                let first = try await client.execute(uri: "/v1/knowledge/items/\(id)", method: .get)
                #expect(first.status == .ok)
                let body = try first.json
                let item = try #require(body["item"]?.objectValue, "\(body)")
                #expect(item["id"] == .string(id))
                for key in ["title", "url", "summary", "content", "type", "tags", "created_at", "permalink"] {
                    #expect(item[key] != nil, "missing \(key)")
                }
                #expect(body["id"] == .string(id))
                let again = try await client.execute(uri: "/v1/knowledge/items/\(id)", method: .get).json
                #expect(again["sections"]?["item"]?["cache"] == .string("hit"))
                #expect(demo.calls(.prsnl, "GET /api/items/\(id)") == 1)
                let upstream = try await demo.call(.prsnl, .GET, "/api/items/\(id)")
                #expect(item["content"] == upstream["content"], "the single item carries its text")
                #expect(item["title"] == upstream["title"])

                // Not a UUID: a 400 before any call.
                let callsBefore = Self.allCalls(demo, .prsnl)
                let bad = try await client.execute(uri: "/v1/knowledge/items/not-a-uuid", method: .get)
                #expect(bad.status == .badRequest)
                #expect(try bad.json["error"]?["code"] == .string("bad_parameter"))
                #expect(Self.allCalls(demo, .prsnl) == callsBefore)

                // An item PRSNL does not have: 404 not_found naming it, as often as asked, and the
                // source stays healthy (no error counted, circuit closed).
                let missing = "00000000-0000-4000-8000-00000000abcd"
                for _ in 0..<8 {
                    let answer = try await client.execute(uri: "/v1/knowledge/items/\(missing)", method: .get)
                    #expect(answer.status == .notFound)
                    let error = try answer.json["error"]
                    #expect(error?["code"] == .string("not_found"))
                    #expect(error?["message"]?.stringValue?.contains(missing) == true)
                }
                let status = try #require(
                    demo.runtime.http.monitor.statuses(profile: "default").first { $0.source.backend == "prsnl" })
                #expect(status.errors == 0)
                #expect(status.circuit == .closed)
                let still = try await client.execute(
                    uri: "/v1/knowledge/items/\(id)", method: .get, headers: [.cacheControl: "no-cache"])
                #expect(still.status == .ok)
            }
        }
    }

    /// PRSNL answers any account's item by id (no user scope upstream); daygate answers only
    /// this account's, and the same 404 for another's as for a missing one.
    @Test func anotherAccountsSavedItemIsNotFound() async throws {
        try await withDemo { demo in
            // Without a token PRSNL's timeline lists every account's items.
            let everyone = try await demo.call(.prsnl, .GET, "/api/timeline?limit=100")
            let other = try #require(
                everyone["items"]?.arrayValue?.first { $0["title"] == .string("Welcome to PRSNL") }?["id"]?
                    .stringValue)
            #expect(try await demo.call(.prsnl, .GET, "/api/items/\(other)")["id"] == .string(other))
            try await demo.test { client in
                let answer = try await client.execute(uri: "/v1/knowledge/items/\(other)", method: .get)
                #expect(answer.status == .notFound)
                #expect(try answer.json["error"]?["code"] == .string("not_found"))
                #expect(!String(buffer: answer.body).contains("Welcome to PRSNL!"))
            }
        }
    }

    /// PRSNL's `next_cursor` ends `+00:00`; daygate gives it out with `Z`, and takes one whose
    /// `+` a pasted URL turned into a space.
    @Test func aTimelineCursorSurvivesAnUnencodedURL() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let first = try await client.execute(uri: "/v1/knowledge/recent?limit=2", method: .get).json
                let cursor = try #require(first["next_cursor"]?.stringValue, "\(first)")
                #expect(cursor.hasSuffix("Z") && !cursor.contains("+"), "\(cursor)")
                let next = try await client.execute(uri: "/v1/knowledge/recent?limit=2&cursor=\(cursor)", method: .get)
                #expect(next.status == .ok)
                let pasted = cursor.replacingOccurrences(of: "Z", with: "+00:00")
                let unencoded = try await client.execute(
                    uri: "/v1/knowledge/recent?limit=2&cursor=\(pasted)", method: .get)
                #expect(unencoded.status == .ok, "\(String(buffer: unencoded.body))")
                #expect(try unencoded.json["items"] == next.json["items"])
                #expect(try next.json["items"]?.arrayValue?.isEmpty == false)
            }
        }
    }

    @Test func foodSearchAnswersPerServingAndIsCached() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let answer = try await client.execute(uri: "/v1/foods/search?q=apple", method: .get)
                #expect(answer.status == .ok)
                let body = try answer.json
                let foods = try #require(body["foods"]?.arrayValue, "\(body)")
                let apple = try #require(foods.first { $0["name"] == .string("Apple") })
                #expect(apple["source"] == .string("database"))
                #expect(apple["calories"]?.numberValue == 95)
                #expect(apple["serving_size"]?.numberValue == 182)
                #expect(apple["serving_unit"] == .string("g"))
                #expect(apple["brand"] == .null)
                #expect(apple["id"]?.stringValue?.isEmpty == false)
                #expect(body["limit"] == .string("10"))

                let again = try await client.execute(uri: "/v1/foods/search?q=apple", method: .get).json
                #expect(again["sections"]?["foods"]?["cache"] == .string("hit"))
                #expect(demo.calls(.fitiq, "GET /api/v1/foods/search") == 1)

                let callsBefore = Self.allCalls(demo, .fitiq)
                for query in ["", "?q=" + String(repeating: "a", count: 101), "?q=apple&limit=101", "?q=apple&limit=0"]
                {
                    let refused = try await client.execute(uri: "/v1/foods/search\(query)", method: .get)
                    #expect(refused.status == .badRequest, "\(query)")
                    #expect(try refused.json["error"]?["code"] == .string("bad_parameter"))
                }
                #expect(Self.allCalls(demo, .fitiq) == callsBefore, "no call for bad input")
            }
        }
    }

    @Test func barcodeLookup() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let found = try await client.execute(uri: "/v1/foods/barcode/8710000123456", method: .get)
                #expect(found.status == .ok)
                let food = try #require(try found.json["food"]?.objectValue)
                #expect(food["name"] == .string("Stroopwafel"))
                #expect(food["brand"] == .string("Daelmans"))
                #expect(food["source"] == .string("barcode"))
                #expect(food["calories"]?.numberValue == 140)

                let callsBefore = Self.allCalls(demo, .fitiq)
                for code in ["1234567", "123456789012345", "87100001234ab"] {
                    let refused = try await client.execute(uri: "/v1/foods/barcode/\(code)", method: .get)
                    #expect(refused.status == .badRequest, "\(code)")
                }
                #expect(Self.allCalls(demo, .fitiq) == callsBefore, "no call for bad input")
                let unknown = try await client.execute(uri: "/v1/foods/barcode/00000000", method: .get)
                #expect(unknown.status == .notFound)
                #expect(try unknown.json["error"]?["code"] == .string("not_found"))
                #expect(unknown.headers[.cacheControl] == "no-store")
            }
        }
    }

    @Test func deletingAFoodLogRefreshesNutritionAndToday() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let search = try await client.execute(uri: "/v1/foods/search?q=Banana", method: .get).json
                let banana = try #require(search["foods"]?.arrayValue?.first)
                let bananaID = try #require(banana["id"]?.stringValue)
                let perServing = try #require(banana["calories"]?.numberValue)
                let source = try #require(banana["source"]?.stringValue)

                let before = try await client.execute(uri: "/v1/nutrition", method: .get).json
                let beforeToday = try await client.execute(uri: "/v1/today", method: .get).json
                let logged = try await client.execute(
                    uri: "/v1/food-logs", method: .post, headers: Self.json,
                    body: ByteBuffer(
                        string:
                            #"{"food_id":"\#(bananaID)","food_source":"\#(source)","meal_type":"snack","servings":2}"#))
                #expect(logged.status == .created)
                let logID = try #require(try logged.json["food_log"]?["id"]?.stringValue)

                // /v1/nutrition lists the new log with its food's name and calories.
                let after = try await client.execute(uri: "/v1/nutrition", method: .get).json
                let logs = try #require(after["food_logs"]?.arrayValue, "\(after)")
                let entry = try #require(logs.first { $0["id"] == .string(logID) })
                #expect(entry["name"] == banana["name"])
                #expect(entry["calories"]?.numberValue == (perServing * 2).rounded())
                #expect(entry["meal_type"] == .string("snack"))
                #expect(entry["food_id"] == .string(bananaID))
                let calories = { (body: JSONValue) in body["nutrition"]?["calories"]?.numberValue ?? -1 }
                #expect(calories(after) > calories(before))

                let deleted = try await client.execute(uri: "/v1/food-logs/\(logID)", method: .delete)
                #expect(deleted.status == .noContent)
                #expect(deleted.body.readableBytes == 0)
                let gone = try await client.execute(uri: "/v1/nutrition", method: .get).json
                #expect(gone["food_logs"]?.arrayValue?.contains { $0["id"] == .string(logID) } == false)
                #expect(calories(gone) == calories(before))
                let today = try await client.execute(uri: "/v1/today", method: .get).json
                #expect(calories(today) == calories(beforeToday))

                // Sent again (its answer lost on the way back): the log this gateway deleted is
                // gone, which is what was asked — 204, not "there never was such a log".
                let again = try await client.execute(uri: "/v1/food-logs/\(logID)", method: .delete)
                #expect(again.status == .noContent)
                #expect(demo.calls(.fitiq, "DELETE /api/v1/food-logs/\(logID)") == 2)
                // A log nobody deleted here is still not found.
                let unknown = try await client.execute(
                    uri: "/v1/food-logs/6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7", method: .delete)
                #expect(unknown.status == .notFound)
                #expect(try unknown.json["error"]?["code"] == .string("not_found"))

                // FitIQ deletes and a proxy answers 504: the client is told it failed, and its
                // retry (no key) finds the log gone — 204.
                let second = try await client.execute(
                    uri: "/v1/food-logs", method: .post, headers: Self.json,
                    body: ByteBuffer(
                        string:
                            #"{"food_id":"\#(bananaID)","food_source":"\#(source)","meal_type":"snack","servings":1}"#))
                let secondID = try #require(try second.json["food_log"]?["id"]?.stringValue)
                _ = try await demo.call(
                    .fitiq, .POST, "/_sim/faults", json: #"{"error_status":504,"error_after":true,"method":"DELETE"}"#)
                let lost = try await client.execute(uri: "/v1/food-logs/\(secondID)", method: .delete)
                #expect(lost.status == .badGateway)
                _ = try await demo.call(.fitiq, .POST, "/_sim/faults", json: "{}")
                let retried = try await client.execute(uri: "/v1/food-logs/\(secondID)", method: .delete)
                #expect(retried.status == .noContent)

                let callsBefore = Self.allCalls(demo, .fitiq)
                let bad = try await client.execute(uri: "/v1/food-logs/not-a-uuid", method: .delete)
                #expect(bad.status == .badRequest)
                #expect(Self.allCalls(demo, .fitiq) == callsBefore)
            }
        }
    }

    /// FitIQ refuses to delete another user's log (403): the gateway says so as a 403
    /// `upstream_rejected`, the log stays, and the profile's cached nutrition is kept.
    @Test func deletingAnotherUsersFoodLogIs403() async throws {
        try await withDemo { demo in
            // Bas's breakfast, read past the gateway with his own login (as FitIQ's app would).
            let apiKey = ("X-API-Key", FitIQSimulator.demoAPIKey)
            let bas = try await demo.call(
                .fitiq, .POST, "/api/v1/auth/login", json: #"{"email":"bas@example.org","password":"Bas-Demo-2025!"}"#,
                headers: [apiKey])
            let token = try #require(bas["data"]?["access_token"]?.stringValue)
            let asBas = [apiKey, ("Authorization", "Bearer \(token)")]
            let logs = try await demo.call(.fitiq, .GET, "/api/v1/food-logs", headers: asBas)
            let theirs = try #require(logs["data"]?["logs"]?.arrayValue?.first?["id"]?.stringValue)

            try await demo.test { client in
                let before = try await client.execute(uri: "/v1/nutrition", method: .get).json
                let lookups = demo.calls(.fitiq, "GET /api/v1/food-logs")
                let refused = try await client.execute(uri: "/v1/food-logs/\(theirs)", method: .delete)
                #expect(refused.status == .forbidden, "\(String(buffer: refused.body))")
                #expect(try refused.json["error"]?["code"] == .string("upstream_rejected"))
                #expect(demo.calls(.fitiq, "DELETE /api/v1/food-logs/\(theirs)") == 1)
                // Nothing changed, so nothing was dropped: the next read is the cached one.
                let after = try await client.execute(uri: "/v1/nutrition", method: .get).json
                #expect(after["food_logs"] == before["food_logs"])
                #expect(demo.calls(.fitiq, "GET /api/v1/food-logs") == lookups)
            }
            let still = try await demo.call(.fitiq, .GET, "/api/v1/food-logs", headers: asBas)
            #expect(still["data"]?["logs"]?.arrayValue?.contains { $0["id"] == .string(theirs) } == true)
        }
    }
}
