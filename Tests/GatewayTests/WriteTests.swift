import AsyncHTTPClient
import Cache
import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Synchronization
import Testing

@testable import daygate

/// Writes through the gateway against the simulators: each write, the read after it (served
/// from the cache, which the write invalidated), validation, `Idempotency-Key`, and the
/// change the dashboards are told about.
@Suite("Writes")
struct WriteTests {
    static let json: HTTPFields = [.contentType: "application/json"]
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    static func titles(_ body: JSONValue, _ key: String) -> [String] {
        body[key]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
    }

    /// Collects cache changes published while `body` runs.
    static func changes(of demo: DemoHarness, during body: () async throws -> Void) async rethrows -> [CacheChange] {
        let stream = demo.runtime.cache.changes.subscribe()
        let collected = Mutex<[CacheChange]>([])
        let reader = Task { for await change in stream { collected.withLock { $0.append(change) } } }
        try await body()
        try? await Task.sleep(for: .milliseconds(100))
        reader.cancel()
        return collected.withLock { $0 }
    }

    @Test func anAddedTaskIsInTheNextReadOfTheInbox() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let before = try await client.execute(uri: "/v1/tasks?list=inbox", method: .get).json
                let counts = try await client.execute(uri: "/v1/tasks/counts", method: .get).json
                let changes = try await Self.changes(of: demo) {
                    let added = try await client.execute(
                        uri: "/v1/tasks", method: .post, headers: Self.json,
                        body: ByteBuffer(string: #"{"title":"  Melk kopen "}"#))
                    #expect(added.status == .created)
                    #expect(try added.json["task"]?["title"] == .string("Melk kopen"))
                    #expect(try added.json["task"]?["id"]?.stringValue?.hasPrefix("task_") == true)
                }
                #expect(
                    changes.contains(CacheChange(kind: .invalidated, profile: "default", operation: "tickedify.list")))
                #expect(
                    changes.contains(CacheChange(kind: .invalidated, profile: "default", operation: "tickedify.counts"))
                )
                let after = try await client.execute(uri: "/v1/tasks?list=inbox", method: .get).json
                #expect(
                    Self.titles(after, "tasks") == ["Melk kopen"] + Self.titles(before, "tasks"),
                    "newest first, without a no-cache")
                let newCounts = try await client.execute(uri: "/v1/tasks/counts", method: .get).json
                #expect(
                    newCounts["counts"]?["inbox"]?.numberValue == (counts["counts"]?["inbox"]?.numberValue ?? 0) + 1)
            }
        }
    }

    @Test func twentyConcurrentAddsGiveTwentyTasks() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let before = Self.titles(
                    try await client.execute(uri: "/v1/tasks?list=inbox", method: .get).json, "tasks")
                let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            try await client.execute(
                                uri: "/v1/tasks", method: .post, headers: Self.json,
                                body: ByteBuffer(string: #"{"title":"Taak \#(index)"}"#)
                            ).status
                        }
                    }
                    var all: [HTTPResponse.Status] = []
                    for try await status in group { all.append(status) }
                    return all
                }
                #expect(statuses.allSatisfy { $0 == .created })
                let after = Self.titles(
                    try await client.execute(
                        uri: "/v1/tasks?list=inbox", method: .get, headers: [.cacheControl: "no-cache"]
                    ).json, "tasks")
                #expect(after.count == before.count + 20)
                #expect(Set(after).isSuperset(of: (0..<20).map { "Taak \($0)" }))
            }
            #expect(demo.calls(.tickedify, "POST /api/taak/add-to-inbox") == 20)
        }
    }

    @Test func badTasksAreRefusedBeforeTickedifyIsCalled() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                for body in [
                    "{}", #"{"title":""}"#, #"{"title":"   "}"#, #"{"title":42}"#, #"{"titel":"x"}"#, "[]", "not json",
                    #"{"title":"\#(String(repeating: "a", count: 501))"}"#, #"{"title":"a\u0007b"}"#,
                ] {
                    let response = try await client.execute(
                        uri: "/v1/tasks", method: .post, headers: Self.json, body: ByteBuffer(string: body))
                    #expect(response.status == .badRequest, "\(body.prefix(30))")
                    #expect(try response.json["error"]?["message"]?.stringValue?.isEmpty == false)
                }
            }
            #expect(demo.calls(.tickedify, "POST /api/taak/add-to-inbox") == 0)
        }
    }

    @Test func anIdempotencyKeyWritesOnce() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                var headers = Self.json
                headers[Self.idempotencyKey] = "ha-automation-7f3a"
                let first = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: headers, body: ByteBuffer(string: #"{"title":"Vuilnis"}"#)
                )
                let again = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: headers, body: ByteBuffer(string: #"{"title":"Vuilnis"}"#)
                )
                #expect(first.status == .created)
                #expect(again.status == .created)
                #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
                #expect(try again.json == first.json)
                let other = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: headers,
                    body: ByteBuffer(string: #"{"title":"Iets anders"}"#))
                #expect(other.status == .unprocessableContent)
                #expect(try other.json["error"]?["code"] == .string("idempotency_key_reused"))
            }
            #expect(demo.calls(.tickedify, "POST /api/taak/add-to-inbox") == 1)
            // The key survives a restart (it is kept in SQLite).
            let restarted = try demo.restarted()
            try await restarted.test { client in
                var headers = Self.json
                headers[Self.idempotencyKey] = "ha-automation-7f3a"
                let replay = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: headers, body: ByteBuffer(string: #"{"title":"Vuilnis"}"#)
                )
                #expect(replay.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            }
            #expect(demo.calls(.tickedify, "POST /api/taak/add-to-inbox") == 1)
        }
    }

    /// A 429 wrote nothing: a retry with the same key after the wait goes through.
    @Test func aRateLimitedWriteCanBeRetriedWithItsKey() async throws {
        try await withDemo { demo in
            _ = try await demo.call(.prsnl, .POST, "/_sim/faults", json: #"{"error_status":429}"#)
            try await demo.test { client in
                var headers = Self.json
                headers[Self.idempotencyKey] = "capture-rl-1"
                let body = #"{"content":"Later lezen","title":"Later"}"#
                let limited = try await client.execute(
                    uri: "/v1/captures", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(limited.status == .tooManyRequests)
                #expect(limited.headers[.retryAfter] != nil)
                _ = try await demo.call(.prsnl, .POST, "/_sim/faults", json: "{}")
                // The gateway itself waits out the backend's Retry-After before calling again.
                try await Task.sleep(for: .milliseconds(10))
                let again = try await client.execute(
                    uri: "/v1/captures", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == nil, "a 429 is not kept")
                #expect(again.status == .tooManyRequests || again.status == .accepted)
            }
        }
    }

    @Test func eventsAreCreatedMovedAndDeletedAndEveryTouchedDayIsFresh() async throws {
        try await withDemo { demo in
            let zone = DemoHarness.zone
            let today = LocalDate.today(in: zone)
            let tomorrow = today.adding(days: 1)
            let inThreeDays = today.adding(days: 3)
            @Sendable func at(_ day: LocalDate, _ hour: Int) -> String {
                LenientDate.format(day.interval(in: zone).start.addingTimeInterval(Double(hour) * 3600), in: zone)
            }
            try await demo.test { client in
                for day in [tomorrow, inThreeDays] {
                    _ = try await client.execute(uri: "/v1/events?date=\(day)", method: .get)
                }
                let week = "/v1/events?from=\(today)&to=\(today.adding(days: 6))"
                _ = try await client.execute(uri: week, method: .get)
                let created = try await client.execute(
                    uri: "/v1/events", method: .post, headers: Self.json,
                    body: ByteBuffer(
                        string:
                            #"{"title":"Tandarts","start":"\#(at(tomorrow, 10))","end":"\#(at(tomorrow, 11))","location":"Centrum"}"#
                    )
                )
                #expect(created.status == .created)
                let id = try #require(created.json["event"]?["id"]?.stringValue)
                #expect(try created.json["event"]?["start"] == .string(at(tomorrow, 10)))
                #expect(
                    Self.titles(
                        try await client.execute(uri: "/v1/events?date=\(tomorrow)", method: .get).json, "events"
                    ).contains("Tandarts"))
                #expect(
                    Self.titles(try await client.execute(uri: week, method: .get).json, "events").contains("Tandarts"))

                // Moved by a partial update: gone from the old day, there on the new one.
                let moved = try await client.execute(
                    uri: "/v1/events/\(id)", method: .put, headers: Self.json,
                    body: ByteBuffer(string: #"{"start":"\#(at(inThreeDays, 9))","end":"\#(at(inThreeDays, 10))"}"#)
                )
                #expect(moved.status == .ok)
                #expect(
                    try moved.json["event"]?["location"] == .string("Centrum"),
                    "a partial update keeps the other fields")
                #expect(
                    !Self.titles(
                        try await client.execute(uri: "/v1/events?date=\(tomorrow)", method: .get).json, "events"
                    ).contains("Tandarts"))
                #expect(
                    Self.titles(
                        try await client.execute(uri: "/v1/events?date=\(inThreeDays)", method: .get).json, "events"
                    ).contains("Tandarts"))

                let badMove = try await client.execute(
                    uri: "/v1/events/\(id)", method: .put, headers: Self.json,
                    body: ByteBuffer(string: #"{"end":"\#(at(inThreeDays, 8))"}"#)
                )
                #expect(badMove.status == .badRequest, "end before the kept start")
                #expect(try badMove.json["error"]?["message"] == .string("end must be after start"))

                let deleted = try await client.execute(uri: "/v1/events/\(id)", method: .delete)
                #expect(deleted.status == .ok)
                #expect(
                    !Self.titles(
                        try await client.execute(uri: "/v1/events?date=\(inThreeDays)", method: .get).json, "events"
                    ).contains("Tandarts"))
                #expect(try await client.execute(uri: "/v1/events/\(id)", method: .delete).status == .notFound)
            }
        }
    }

    @Test func badEventsAreRefusedWithTheField() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let cases: [(String, String)] = [
                    (
                        #"{"title":"x","start":"2026-11-23T10:00:00+01:00","end":"2026-11-23T09:00:00+01:00"}"#,
                        "end must be after start"
                    ),
                    (
                        #"{"title":"x","start":"2026-11-23T10:00:00","end":"2026-11-23T11:00:00+01:00"}"#,
                        "start must be an ISO-8601 time with an offset"
                    ),
                    (#"{"start":"2026-11-23T10:00:00Z","end":"2026-11-23T11:00:00Z"}"#, "needs title, start and end"),
                    (
                        #"{"title":"x","start":"2026-11-23T10:00:00Z","end":"2026-11-23T11:00:00Z","status":"maybe"}"#,
                        "status must be one of"
                    ),
                    (
                        #"{"title":"x","start":"2026-11-23T10:00:00Z","end":"2026-11-23T11:00:00Z","when":"now"}"#,
                        "unknown field \"when\""
                    ),
                    (
                        #"{"title":"","start":"2026-11-23T10:00:00Z","end":"2026-11-23T11:00:00Z"}"#,
                        "title must not be empty"
                    ),
                ]
                for (body, message) in cases {
                    let response = try await client.execute(
                        uri: "/v1/events", method: .post, headers: Self.json, body: ByteBuffer(string: body))
                    #expect(response.status == .badRequest, "\(body)")
                    #expect(
                        try response.json["error"]?["message"]?.stringValue?.contains(message) == true,
                        "\(body) → \(String(buffer: response.body))")
                }
                let missing = try await client.execute(
                    uri: "/v1/events/no-such-event", method: .put, headers: Self.json,
                    body: ByteBuffer(string: #"{"title":"y"}"#))
                #expect(missing.status == .notFound)
            }
            #expect(demo.calls(.eightalls, "POST /api/events") == 0)
        }
    }

    @Test func anUpstreamRefusalIsUpstreamRejectedAndAFailureIsNeverRetried() async throws {
        try await withDemo { demo in
            _ = try await demo.call(.tickedify, .POST, "/_sim/faults", json: #"{"error_status":500}"#)
            try await demo.test { client in
                let response = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"title":"x"}"#))
                #expect(response.status == .badGateway)
                #expect(try response.json["error"]?["code"] == .string("upstream_error"))
            }
            // The session check fails first; the add itself is never sent, and nothing twice.
            #expect(demo.calls(.tickedify, "POST /api/taak/add-to-inbox") == 0)
        }
    }

    /// A dienst of the demo's diensten, by what the test needs.
    static func dienst(_ client: any TestClientProtocol, where matches: (JSONValue) -> Bool) async throws -> JSONValue {
        let diensten = try await client.execute(uri: "/v1/diensten", method: .get).json["diensten"]?.arrayValue ?? []
        return try #require(
            diensten.first { dienst in
                matches(dienst)
                    && (dienst["start"]?.stringValue.flatMap { LenientDate.parse($0) } ?? .distantPast)
                        > Date().addingTimeInterval(3600)
            })
    }

    /// `POST /v1/diensten/{id}/volunteers[?query]` putting `name` on the dienst.
    static func addVolunteer(_ client: any TestClientProtocol, _ id: String, _ name: String, query: String = "")
        async throws -> TestResponse
    {
        try await client.execute(
            uri: "/v1/diensten/\(id)/volunteers" + query, method: .post, headers: Self.json,
            body: ByteBuffer(string: #"{"name":"\#(name)"}"#))
    }

    @Test func aManagerAddsAndRemovesAVolunteerAndTheNextReadShowsIt() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let dienst = try await Self.dienst(client) {
                    $0["role"] == .string("manager") && ($0["open_spots"]?.numberValue ?? 0) > 0
                }
                let id = try #require(dienst["id"]?.stringValue)
                let added = try await client.execute(
                    uri: "/v1/diensten/\(id)/volunteers", method: .post, headers: Self.json,
                    body: ByteBuffer(string: #"{"name":"Testnaam"}"#))
                #expect(added.status == .ok)
                #expect(try added.json["dienst"]?["volunteers"]?.arrayValue?.contains(.string("Testnaam")) == true)
                let listed =
                    try await client.execute(uri: "/v1/diensten", method: .get).json["diensten"]?.arrayValue ?? []
                #expect(
                    listed.first { $0["id"] == .string(id) }?["volunteers"]?.arrayValue?.contains(.string("Testnaam"))
                        == true, "read after write")

                let twice = try await client.execute(
                    uri: "/v1/diensten/\(id)/volunteers", method: .post, headers: Self.json,
                    body: ByteBuffer(string: #"{"name":"Testnaam"}"#))
                #expect(twice.status == .conflict)
                for name in ["", "               ", "Zestienkarakters"] {
                    let bad = try await client.execute(
                        uri: "/v1/diensten/\(id)/volunteers", method: .post, headers: Self.json,
                        body: ByteBuffer(string: #"{"name":"\#(name)"}"#))
                    #expect(bad.status == .badRequest, "name \"\(name)\"")
                }

                let removed = try await client.execute(uri: "/v1/diensten/\(id)/volunteers/Testnaam", method: .delete)
                #expect(removed.status == .ok)
                #expect(try removed.json["dienst"]?["volunteers"]?.arrayValue?.contains(.string("Testnaam")) == false)
                let gone = try await client.execute(uri: "/v1/diensten/\(id)/volunteers/Testnaam", method: .delete)
                #expect(gone.status == .notFound)

                let member = try await Self.dienst(client) { $0["role"] == .string("member") }
                let memberID = try #require(member["id"]?.stringValue)
                let refused = try await Self.addVolunteer(client, memberID, "Piet")
                #expect(refused.status == .forbidden)
                let unknown = try await Self.addVolunteer(client, "no-such-dienst", "Piet")
                #expect(unknown.status == .notFound)
            }
        }
    }

    /// Names are told apart by case, as in the club app: "jan" may join "Jan", and removing
    /// "jan" leaves "Jan".
    @Test func volunteersDifferingByCaseAreKeptApart() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let dienst = try await Self.dienst(client) { $0["role"] == .string("manager") }
                let id = try #require(dienst["id"]?.stringValue)
                for name in ["Jan", "jan"] {
                    let added = try await Self.addVolunteer(client, id, name)
                    #expect(added.status == .ok, "\(name)")
                }
                let removed = try await client.execute(uri: "/v1/diensten/\(id)/volunteers/jan", method: .delete)
                #expect(removed.status == .ok)
                let left = try removed.json["dienst"]?["volunteers"]?.arrayValue ?? []
                #expect(left.contains(.string("Jan")) && !left.contains(.string("jan")), "\(left)")
                let again = try await client.execute(uri: "/v1/diensten/\(id)/volunteers/jan", method: .delete)
                #expect(again.status == .notFound)
                #expect(try again.json["error"]?["message"]?.stringValue?.contains("Jan") == true)
            }
        }
    }

    /// `?tenant=` names the dienst's club (needed only when its id is seen at more than one): at
    /// another club the id is not found; at its own the change is made there.
    @Test func aVolunteerChangeCanNameTheDienstsClub() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let dienst = try await Self.dienst(client) { $0["role"] == .string("manager") }
                let id = try #require(dienst["id"]?.stringValue)
                let club = try #require(dienst["tenant"]?.stringValue)
                let elsewhere = try await Self.addVolunteer(client, id, "Kees", query: "?tenant=nergens")
                #expect(elsewhere.status == .notFound)
                let there = try await Self.addVolunteer(client, id, "Kees", query: "?tenant=\(club)")
                #expect(there.status == .ok)
                let removed = try await client.execute(
                    uri: "/v1/diensten/\(id)/volunteers/Kees?tenant=\(club)", method: .delete)
                #expect(removed.status == .ok)
            }
        }
    }

    /// A volunteer add whose answer was lost (the club stored it, then answered 504) shows on the
    /// next read, without a no-cache: the cached diensten are dropped on "may have happened" as
    /// on success.
    @Test func anAddWhoseOutcomeIsUnknownShowsOnTheNextRead() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let dienst = try await Self.dienst(client) {
                    $0["role"] == .string("manager") && ($0["open_spots"]?.numberValue ?? 0) > 0
                }
                let id = try #require(dienst["id"]?.stringValue)
                _ = try await demo.call(
                    .kantinekoning, .POST, "/_sim/writes/fail", json: #"{"status":504,"after_write":true}"#)
                let lost = try await Self.addVolunteer(client, id, "Verloren")
                #expect(lost.status == .badGateway)
                let listed =
                    try await client.execute(uri: "/v1/diensten", method: .get).json["diensten"]?.arrayValue ?? []
                #expect(
                    listed.first { $0["id"] == .string(id) }?["volunteers"]?.arrayValue?.contains(.string("Verloren"))
                        == true, "the next read shows the add that landed")

                // One that did not land (the club answered 504 before storing it): the next read
                // asks the club again, and shows it is not there.
                _ = try await demo.call(.kantinekoning, .POST, "/_sim/writes/fail", json: #"{"status":504}"#)
                let reads = demo.calls(.kantinekoning, "GET /api/mobile/v1/diensten")
                let failed = try await Self.addVolunteer(client, id, "Nooit")
                #expect(failed.status == .badGateway)
                let lookups = demo.calls(.kantinekoning, "GET /api/mobile/v1/diensten") - reads
                let again =
                    try await client.execute(uri: "/v1/diensten", method: .get).json["diensten"]?.arrayValue ?? []
                #expect(
                    demo.calls(.kantinekoning, "GET /api/mobile/v1/diensten") > reads + lookups, "asked the club again")
                #expect(
                    again.first { $0["id"] == .string(id) }?["volunteers"]?.arrayValue?.contains(.string("Nooit"))
                        == false)
            }
        }
    }

    @Test func aCaptureIsSentWithAContentTypeAndShowsInTheTimeline() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                _ = try await client.execute(uri: "/v1/knowledge/recent", method: .get)
                let captured = try await client.execute(
                    uri: "/v1/captures", method: .post, headers: Self.json,
                    body: ByteBuffer(
                        string:
                            #"{"content":"Bel de loodgieter over de kraan","title":"Loodgieter","tags":["Huis","huis"]}"#
                    )
                )
                #expect(captured.status == .accepted)
                #expect(try captured.json["capture"]?["id"]?.stringValue != nil)
                let recent = try await client.execute(uri: "/v1/knowledge/recent", method: .get).json
                #expect(
                    Self.titles(recent, "items").contains("Loodgieter"),
                    "read after write: \(Self.titles(recent, "items"))")

                let empty = try await client.execute(
                    uri: "/v1/captures", method: .post, headers: Self.json,
                    body: ByteBuffer(string: #"{"title":"nothing"}"#))
                #expect(empty.status == .badRequest)
                _ = try await demo.call(.prsnl, .POST, "/_sim/faults", json: #"{"error_status":429}"#)
                let limited = try await client.execute(
                    uri: "/v1/captures", method: .post, headers: Self.json,
                    body: ByteBuffer(string: #"{"url":"https://example.org/a"}"#))
                #expect(limited.status == .tooManyRequests)
                #expect(limited.headers[.retryAfter] != nil)
                #expect(try limited.json["error"]?["code"] == .string("upstream_rate_limited"))
            }
        }
    }

    @Test func aFoodLogChangesThatDaysNutrition() async throws {
        try await withDemo { demo in
            var search = HTTPClientRequest(url: demo.simulator(.fitiq).apiBaseURL + "/api/v1/foods/search?q=Banana")
            search.headers.add(name: "X-API-Key", value: FitIQSimulator.demoAPIKey)
            let found = try await HTTPClient.shared.execute(search, timeout: .seconds(5))
            let foods = try JSONDecoder().decode(
                JSONValue.self, from: Data(try await found.body.collect(upTo: 1 << 20).readableBytesView))
            let banana = try #require(foods["data"]?["foods"]?.arrayValue?.first?["id"]?.stringValue)
            try await demo.test { client in
                let before =
                    try await client.execute(uri: "/v1/nutrition", method: .get).json["nutrition"]?["calories"]?
                    .numberValue ?? 0
                let logged = try await client.execute(
                    uri: "/v1/food-logs", method: .post, headers: Self.json,
                    body: ByteBuffer(
                        string: #"{"food_id":"\#(banana)","food_source":"database","meal_type":"snack","servings":1}"#)
                )
                #expect(logged.status == .created)
                #expect(try logged.json["date"] == .string(LocalDate.today(in: DemoHarness.zone).description))
                let after =
                    try await client.execute(uri: "/v1/nutrition", method: .get).json["nutrition"]?["calories"]?
                    .numberValue ?? 0
                #expect(after > before, "read after write: \(before) → \(after)")

                let bad = try await client.execute(
                    uri: "/v1/food-logs", method: .post, headers: Self.json,
                    body: ByteBuffer(
                        string: #"{"food_id":"x","food_source":"database","meal_type":"brunch","servings":1}"#)
                )
                #expect(bad.status == .badRequest)
                let missing = try await client.execute(
                    uri: "/v1/food-logs", method: .post, headers: Self.json,
                    body: ByteBuffer(
                        string:
                            #"{"food_id":"00000000-0000-4000-8000-000000000000","food_source":"database","meal_type":"lunch","servings":1}"#
                    )
                )
                #expect(missing.status == .notFound)
                #expect(try missing.json["error"]?["code"] == .string("upstream_rejected"))
            }
        }
    }
}
