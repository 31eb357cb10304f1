import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

@testable import daygate

/// Completing and reopening Tickedify tasks and moving or removing plan slots through the
/// gateway against the demo's simulators: the answers, Tickedify's refusals, `Idempotency-Key`,
/// and the cached reads (plan, lists, counts, summary, calendar feed) that follow at once.
@Suite("Task writes")
struct TaskWriteTests {
    static let json: HTTPFields = [.contentType: "application/json"]
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    static func plan(_ client: any TestClientProtocol, fresh: Bool = false) async throws -> [JSONValue] {
        let headers: HTTPFields = fresh ? [.cacheControl: "no-cache"] : [:]
        return try await client.execute(uri: "/v1/plan", method: .get, headers: headers).json["plan"]?.arrayValue ?? []
    }

    static func slot(_ plan: [JSONValue], _ title: String) throws -> JSONValue {
        try #require(plan.first { $0["title"]?.stringValue == title }, "\(title) in the plan")
    }

    static func taskIDs(_ client: any TestClientProtocol, _ list: String) async throws -> [String] {
        let body = try await client.execute(uri: "/v1/tasks?list=\(list)", method: .get).json
        return body["tasks"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, body: String? = nil, key: String? = nil)
        async throws -> TestResponse
    {
        var headers = json
        if let key { headers[idempotencyKey] = key }
        return try await client.execute(
            uri: uri, method: .post, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    @Test func completingAPlannedTaskUpdatesEveryCachedRead() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                // Everything cached first.
                let plan = try await Self.plan(client)
                let task = try #require(try Self.slot(plan, "Offerte tegelzetter vergelijken")["task_id"]?.stringValue)
                #expect(try await Self.taskIDs(client, "acties").contains(task))
                let counts = try await client.execute(uri: "/v1/tasks/counts", method: .get).json
                let summary = try await client.execute(uri: "/v1/summary", method: .get).json
                let feed = String(buffer: try await client.execute(uri: "/v1/calendar.ics", method: .get).body)
                #expect(feed.contains("SUMMARY:Offerte tegelzetter vergelijken"))

                let done = try await Self.post(client, "/v1/tasks/\(task)/complete")
                #expect(done.status == .ok)
                let answer = try done.json
                #expect(answer["task"]?["id"] == .string(task))
                #expect(answer["next_task_id"] == .null)
                let completedAt = try #require(answer["task"]?["completed_at"]?.stringValue)
                #expect(completedAt.hasSuffix("Z") && LenientDate.parse(completedAt) != nil)
                #expect(demo.calls(.tickedify, "PUT /api/taak/\(task)") == 1)

                // No no-cache needed: the write dropped what it made wrong.
                #expect(!(try await Self.plan(client)).contains { $0["task_id"] == .string(task) })
                #expect(!(try await Self.taskIDs(client, "acties")).contains(task))
                let newCounts = try await client.execute(uri: "/v1/tasks/counts", method: .get).json
                #expect(
                    newCounts["counts"]?["acties"]?.numberValue == (counts["counts"]?["acties"]?.numberValue ?? 0) - 1)
                let newSummary = try await client.execute(uri: "/v1/summary", method: .get).json
                #expect(
                    newSummary["tasks_done"]?.numberValue == (summary["tasks_done"]?.numberValue ?? 0) + 1)
                #expect(
                    newSummary["tasks"]?["done_titles"]?.arrayValue?.contains(
                        .string("Offerte tegelzetter vergelijken"))
                        == true)
                let newFeed = String(buffer: try await client.execute(uri: "/v1/calendar.ics", method: .get).body)
                #expect(!newFeed.contains("SUMMARY:Offerte tegelzetter vergelijken"))

                // Again: Tickedify no longer has it open.
                let again = try await Self.post(client, "/v1/tasks/\(task)/complete", body: "{}")
                #expect(again.status == .notFound)
                #expect(try again.json["error"]?["code"] == .string("not_found"))
                #expect(
                    try again.json["error"]?["message"]?.stringValue?.contains("completed already or deleted") == true)
            }
        }
    }

    @Test func aRecurringTaskAnswersItsNextOccurrenceAndReopeningPutsItInTheInbox() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let task = try #require(
                    try Self.slot(try await Self.plan(client), "Mama bellen")["task_id"]?.stringValue)
                let inbox = try await Self.taskIDs(client, "inbox")
                let done = try await Self.post(client, "/v1/tasks/\(task)/complete")
                #expect(done.status == .ok)
                let next = try #require(try done.json["next_task_id"]?.stringValue)
                #expect(next != task)
                // Made as the web app makes it (Tickedify's completion makes none): weekly on
                // Mondays, from the task's day, the Monday after; and it is in the list.
                #expect(demo.calls(.tickedify, "POST /api/taak/recurring") == 1)
                let nextDate = try #require(try done.json["next_task_date"]?.stringValue)
                #expect(LocalDate(nextDate)?.weekday == 0)
                let acties = try await client.execute(
                    uri: "/v1/tasks?list=acties&future=true", method: .get, headers: [.cacheControl: "no-cache"]
                ).json
                #expect(
                    acties["tasks"]?.arrayValue?.contains {
                        $0["id"] == .string(next) && $0["title"] == .string("Mama bellen")
                    } == true)

                let reopened = try await Self.post(client, "/v1/tasks/\(task)/reopen")
                #expect(reopened.status == .ok)
                #expect(
                    try reopened.json == .object(["task": .object(["id": .string(task), "list": .string("inbox")])]))
                let newInbox = try await Self.taskIDs(client, "inbox")
                #expect(newInbox.contains(task) && newInbox.count == inbox.count + 1, "the cached inbox was dropped")
                // Its place in the plan is not restored.
                #expect(!(try await Self.plan(client, fresh: true)).contains { $0["task_id"] == .string(task) })

                let again = try await Self.post(client, "/v1/tasks/\(task)/reopen")
                #expect(again.status == .notFound)
                #expect(try again.json["error"]?["code"] == .string("not_found"))
            }
        }
    }

    @Test func aTaskMarkedCompletedInPlaceIsAConflict() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let task = try #require(
                    try Self.slot(try await Self.plan(client), "Uitnodigingen verjaardag versturen")["task_id"]?
                        .stringValue)
                // Tickedify's own plain update marks the row in place (as its fallback path does).
                let cookie = try await TickedifySimulatorLogin.cookie(demo.simulator(.tickedify))
                let marked = try await TickedifySimulatorLogin.send(
                    demo.simulator(.tickedify), .PUT, "/api/taak/\(task)", cookie: cookie,
                    json: #"{"lijst":"afgewerkt","afgewerkt":"2026-11-23T08:00:00.000Z"}"#)
                #expect(marked == 200)
                let done = try await Self.post(client, "/v1/tasks/\(task)/complete")
                #expect(done.status == .conflict)
                #expect(try done.json["error"]?["code"] == .string("already_completed"))
            }
        }
    }

    /// Tickedify's add rewrites the whole inbox from a copy it read first: a completion landing in
    /// between would bring the completed task back. The account's writes are queued, so a
    /// completion sent while an add is at Tickedify waits for it and the task stays completed.
    @Test func aCompletionSentDuringAnAddWaitsForIt() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let inbox = try await client.execute(uri: "/v1/tasks?list=inbox", method: .get).json
                let task = try #require(
                    inbox["tasks"]?.arrayValue?.first { $0["title"] == .string("Fietsband plakken") }?["id"]?
                        .stringValue)
                let add = Task { try await Self.post(client, "/v1/tasks", body: #"{"title":"Melk kopen"}"#).status }
                // The add has reached Tickedify (which now holds its copy of the inbox).
                while demo.calls(.tickedify, "POST /api/taak/add-to-inbox") == 0 { await Task.yield() }
                let done = try await Self.post(client, "/v1/tasks/\(task)/complete")
                #expect(done.status == .ok)
                #expect(try await add.value == .created)
                let after = try await client.execute(
                    uri: "/v1/tasks?list=inbox", method: .get, headers: [.cacheControl: "no-cache"]
                ).json
                let ids = after["tasks"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                #expect(!ids.contains(task), "the completed task came back into the inbox")
            }
        }
    }

    @Test func theSameIdempotencyKeyCompletesOnce() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let task = try #require(
                    try Self.slot(try await Self.plan(client), "Boodschappen doen")["task_id"]?.stringValue)
                let first = try await Self.post(client, "/v1/tasks/\(task)/complete", key: "ha-done-1")
                let second = try await Self.post(client, "/v1/tasks/\(task)/complete", key: "ha-done-1")
                #expect(first.status == .ok)
                #expect(second.status == .ok)
                #expect(second.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
                #expect(try first.json == second.json)
                #expect(demo.calls(.tickedify, "PUT /api/taak/\(task)") == 1)
            }
        }
    }

    /// A completion whose answer does not come in time may have happened: 504, and the same
    /// Idempotency-Key is not sent again.
    @Test func aTimedOutCompletionIsAnUnknownOutcomeAndNotSentAgain() async throws {
        try await withDemo(adjust: { $0.tickedify?.endpoint.timeout = .milliseconds(500) }) { demo in
            try await demo.test { client in
                // The session is proven by this read; the write then goes out without a check.
                let task = try #require(
                    try Self.slot(try await Self.plan(client), "Mama bellen")["task_id"]?.stringValue)
                // Only the completion is slow: the read of the list before it answers at once.
                _ = try await demo.call(.tickedify, .POST, "/_sim/faults", json: #"{"latency_ms":3000,"method":"PUT"}"#)
                let first = try await Self.post(client, "/v1/tasks/\(task)/complete", key: "ha-slow-1")
                #expect(first.status == .gatewayTimeout)
                #expect(try first.json["error"]?["code"] == .string("upstream_timeout"))
                _ = try await demo.call(.tickedify, .POST, "/_sim/faults", json: "{}")
                let retry = try await Self.post(client, "/v1/tasks/\(task)/complete", key: "ha-slow-1")
                #expect(retry.status == .conflict)
                #expect(try retry.json["error"]?["code"] == .string("idempotency_outcome_unknown"))
                #expect(demo.calls(.tickedify, "PUT /api/taak/\(task)") == 1, "never sent again")
            }
        }
    }

    /// The read that tells whether the task recurs comes before the completion: when it times
    /// out nothing was written, so the same Idempotency-Key may be sent again, and is.
    @Test func aCompletionWhoseReadTimedOutWasNotSentAndMayBeSentAgain() async throws {
        try await withDemo(adjust: { $0.tickedify?.endpoint.timeout = .milliseconds(500) }) { demo in
            try await demo.test { client in
                let task = try #require(
                    try Self.slot(try await Self.plan(client), "Mama bellen")["task_id"]?.stringValue)
                _ = try await demo.call(.tickedify, .POST, "/_sim/faults", json: #"{"latency_ms":3000,"method":"GET"}"#)
                let first = try await Self.post(client, "/v1/tasks/\(task)/complete", key: "ha-read-slow-1")
                #expect(first.status == .gatewayTimeout)
                #expect(demo.calls(.tickedify, "PUT /api/taak/\(task)") == 0)
                _ = try await demo.call(.tickedify, .POST, "/_sim/faults", json: "{}")
                let retry = try await Self.post(client, "/v1/tasks/\(task)/complete", key: "ha-read-slow-1")
                #expect(retry.status == .ok)
                #expect(demo.calls(.tickedify, "PUT /api/taak/\(task)") == 1)
            }
        }
    }

    /// An account whose trial ended (Tickedify answers its login with the upgrade page): every
    /// task write is 403 `upstream_access_expired`, nothing reaches Tickedify's write routes, and
    /// the same Idempotency-Key may be sent again once the account is upgraded (it did not happen).
    @Test func everyWriteOfAnAccountWhoseAccessEndedIs403() async throws {
        try await withDemo(adjust: {
            $0.tickedify?.email = TickedifySimulator.upgradeEmail
            $0.tickedify?.password = Secret(TickedifySimulator.upgradePassword)
        }) { demo in
            try await demo.test { client in
                let writes: [(HTTPRequest.Method, String, String?)] = [
                    (.post, "/v1/tasks/task_1/complete", nil), (.post, "/v1/tasks/task_1/reopen", nil),
                    (.put, "/v1/plan/items/item_1", #"{"hour":10}"#), (.delete, "/v1/plan/items/item_1", nil),
                    (.post, "/v1/tasks", #"{"title":"Fietsband plakken"}"#),
                ]
                for (method, uri, body) in writes {
                    var headers = Self.json
                    if method == .post { headers[Self.idempotencyKey] = "no-access-\(uri)" }
                    let answer = try await client.execute(
                        uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
                    #expect(answer.status == .forbidden, "\(method) \(uri): \(String(buffer: answer.body))")
                    let error = try answer.json["error"]
                    #expect(error?["code"] == .string("upstream_access_expired"), "\(uri)")
                    let message = error?["message"]?.stringValue ?? ""
                    #expect(message.contains("upgrade"), "\(uri): \(message)")
                    #expect(!message.contains(TickedifySimulator.upgradePassword))
                }
                // The refused completion did not happen: its key is free to be sent again.
                let again = try await Self.post(
                    client, "/v1/tasks/task_1/complete", key: "no-access-/v1/tasks/task_1/complete")
                #expect(again.status == .forbidden)
                #expect(try again.json["error"]?["code"] == .string("upstream_access_expired"))
            }
            // Only logins and reads reached Tickedify.
            let sent = demo.simulator(.tickedify).control.callCounts.keys.filter {
                !$0.hasPrefix("GET ") && !$0.hasPrefix("POST /api/auth/")
            }
            #expect(sent.isEmpty, "\(sent)")
        }
    }

    @Test func movingAndRemovingPlanSlots() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let plan = try await Self.plan(client)
                let aangifte = try #require(try Self.slot(plan, "Belastingaangifte invullen")["id"]?.stringValue)
                let offerte = try #require(try Self.slot(plan, "Offerte tegelzetter vergelijken")["id"]?.stringValue)

                let moved = try await client.execute(
                    uri: "/v1/plan/items/\(aangifte)", method: .put, headers: Self.json,
                    body: ByteBuffer(string: #"{"hour":16}"#))
                #expect(moved.status == .ok)
                #expect(
                    try moved.json
                        == .object([
                            "plan_item": .object(["id": .string(aangifte), "hour": .int(16), "position": .null])
                        ]))
                let first = try await client.execute(
                    uri: "/v1/plan/items/\(offerte)", method: .put, headers: Self.json,
                    body: ByteBuffer(string: #"{"hour":16,"position":0}"#))
                #expect(try first.json["plan_item"]?["position"] == .int(0))
                let sixteen = try await Self.plan(client).filter { $0["hour"] == .int(16) }
                #expect(sixteen.compactMap { $0["id"]?.stringValue } == [offerte, aangifte])
                #expect(sixteen.compactMap { $0["position"]?.numberValue } == [0, 1])

                for bad in [
                    #"{}"#, #"{"hour":24}"#, #"{"hour":"9"}"#, #"{"hour":9,"minute":30}"#, #"{"hour":9,"position":-1}"#,
                ] {
                    let refused = try await client.execute(
                        uri: "/v1/plan/items/\(offerte)", method: .put, headers: Self.json,
                        body: ByteBuffer(string: bad))
                    #expect(refused.status == .badRequest, "\(bad)")
                }
                #expect(demo.calls(.tickedify, "PUT /api/dagelijkse-planning/\(offerte)/reorder") == 1)

                let removed = try await client.execute(uri: "/v1/plan/items/\(offerte)", method: .delete)
                #expect(removed.status == .noContent)
                #expect(removed.body.readableBytes == 0)
                #expect(removed.headers[.contentType] == nil)
                #expect(!(try await Self.plan(client)).contains { $0["id"] == .string(offerte) })
                let again = try await client.execute(uri: "/v1/plan/items/\(offerte)", method: .delete)
                #expect(again.status == .notFound)
                let unknown = try await client.execute(
                    uri: "/v1/plan/items/onbekend", method: .put, headers: Self.json,
                    body: ByteBuffer(string: #"{"hour":9}"#))
                #expect(unknown.status == .notFound)
                #expect(try unknown.json["error"]?["code"] == .string("not_found"))
            }
            #expect(try await demo.call(.tickedify, .GET, "/_sim/crashes") == .object(["count": .int(0)]))
        }
    }

    /// Tickedify deletes any account's plan slot by id (recorded: exchange 075), and the
    /// simulator keeps that bug. daygate removes a slot only when this profile's plan of the
    /// day (`?date=`, default today) has it; otherwise 404, and no delete is sent.
    @Test func aSlotIsRemovedOnlyWhenItIsInThisProfilesPlanOfThatDay() async throws {
        try await withDemo { demo in
            let today = LocalDate.today(in: DemoHarness.zone)
            let tomorrow = LocalDate(dayNumber: today.dayNumber + 1)
            // Bram, another Tickedify account, plans a slot of his own today, straight at Tickedify.
            let tickedify = demo.simulator(.tickedify)
            var login = HTTPClientRequest(url: tickedify.baseURL + "/api/auth/login")
            login.method = .POST
            login.headers.add(name: "Content-Type", value: "application/json")
            login.body = .bytes(
                ByteBuffer(
                    string:
                        #"{"email":"\#(TickedifySimulator.upgradeEmail)","wachtwoord":"\#(TickedifySimulator.upgradePassword)"}"#
                ))
            let loggedIn = try await HTTPClient.shared.execute(login, timeout: .seconds(5))
            _ = try await loggedIn.body.collect(upTo: 1 << 20)
            let cookie = try #require(
                loggedIn.headers["set-cookie"].first?.split(separator: ";").first.map(String.init))
            let bram = [("Cookie", cookie)]
            let planned = try await demo.call(
                .tickedify, .POST, "/api/dagelijkse-planning",
                json: #"{"datum":"\#(today)","uur":11,"type":"geblokkeerd","duurMinuten":30,"naam":"Bram weg"}"#,
                headers: bram)
            let bramsSlot = try #require(planned["id"]?.stringValue)

            try await demo.test { client in
                let other = try await client.execute(uri: "/v1/plan/items/\(bramsSlot)", method: .delete)
                #expect(other.status == .notFound)
                #expect(try other.json["error"]?["code"] == .string("not_found"))
                #expect(demo.calls(.tickedify, "DELETE /api/dagelijkse-planning/\(bramsSlot)") == 0)

                // One of this profile's slots of tomorrow: not in today's plan, in tomorrow's.
                let plan = try await client.execute(uri: "/v1/plan?date=\(tomorrow)", method: .get).json
                let slot = try #require(plan["plan"]?.arrayValue?.first?["id"]?.stringValue)
                let withoutDay = try await client.execute(uri: "/v1/plan/items/\(slot)", method: .delete)
                #expect(withoutDay.status == .notFound)
                #expect(demo.calls(.tickedify, "DELETE /api/dagelijkse-planning/\(slot)") == 0)
                for query in ["date=morgen", "date=2026-02-30", "day=\(tomorrow)", "date=\(tomorrow)&date=\(tomorrow)"]
                {
                    let refused = try await client.execute(uri: "/v1/plan/items/\(slot)?\(query)", method: .delete)
                    #expect(refused.status == .badRequest, "\(query)")
                    #expect(try refused.json["error"]?["code"] == .string("bad_request"), "\(query)")
                }
                let removed = try await client.execute(uri: "/v1/plan/items/\(slot)?date=\(tomorrow)", method: .delete)
                #expect(removed.status == .noContent)
                #expect(demo.calls(.tickedify, "DELETE /api/dagelijkse-planning/\(slot)") == 1)
                let after = try await client.execute(uri: "/v1/plan?date=\(tomorrow)", method: .get).json
                #expect(!(after["plan"]?.arrayValue ?? []).contains { $0["id"] == .string(slot) })
            }
            // Bram's slot is still in his plan.
            let bramsPlan = try await demo.call(.tickedify, .GET, "/api/dagelijkse-planning/\(today)", headers: bram)
            #expect(bramsPlan.arrayValue?.contains { $0["id"] == .string(bramsSlot) } == true, "\(bramsPlan)")
        }
    }

    @Test func idsThatCannotBeTickedifysAreRefusedBeforeAnythingIsSent() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                // A %2F would split the path: admission refuses it before any route sees it.
                let split = try await Self.post(client, "/v1/tasks/a%2Fb/complete")
                #expect(split.status == .badRequest)
                #expect(try split.json["error"]?["code"] == .string("bad_path"))
                for uri in ["/v1/tasks/a%20b/reopen", "/v1/tasks/a%0Ab/complete", "/v1/tasks/%09/complete"] {
                    let refused = try await Self.post(client, uri)
                    #expect(refused.status == .badRequest, "\(uri): \(String(buffer: refused.body))")
                    // A control character is refused with the path (bad_path), a space by the id check.
                    let code = try refused.json["error"]?["code"]?.stringValue
                    #expect(code == "bad_request" || code == "bad_path", "\(uri): \(code ?? "none")")
                }
                let plan = try await client.execute(
                    uri: "/v1/plan/items/a%09b", method: .put, headers: Self.json,
                    body: ByteBuffer(string: #"{"hour":9}"#))
                #expect(plan.status == .badRequest)
                let body = try await Self.post(client, "/v1/tasks/task_1/complete", body: #"{"done":true}"#)
                #expect(body.status == .badRequest, "complete takes no fields")
                let noType = try await client.execute(uri: "/v1/tasks/task_1/complete", method: .post)
                #expect(noType.status == .unsupportedMediaType)
            }
            let writes = demo.simulator(.tickedify).control.callCounts.keys.filter {
                $0.contains("/api/taak/") || $0.contains("/reorder")
            }
            #expect(writes.isEmpty, "\(writes)")
        }
    }
}

/// Tickedify's own API, called past the gateway (as the web app would).
enum TickedifySimulatorLogin {
    static func cookie(_ sim: RunningSimulator) async throws -> String {
        var request = HTTPClientRequest(url: sim.apiBaseURL + "/api/auth/login")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            ByteBuffer(
                string:
                    #"{"email":"\#(TickedifySimulator.demoEmail)","wachtwoord":"\#(TickedifySimulator.demoPassword)"}"#)
        )
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let header = try #require(response.headers["set-cookie"].first)
        return String(header.prefix { $0 != ";" })
    }

    /// The answer's status.
    static func send(_ sim: RunningSimulator, _ method: HTTPMethod, _ path: String, cookie: String, json: String)
        async throws -> UInt
    {
        var request = HTTPClientRequest(url: sim.apiBaseURL + path)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Cookie", value: cookie)
        request.body = .bytes(ByteBuffer(string: json))
        return try await HTTPClient.shared.execute(request, timeout: .seconds(5)).status.code
    }
}
