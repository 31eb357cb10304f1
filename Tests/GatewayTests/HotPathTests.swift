import Foundation
import Gateway
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Synchronization
import Testing

/// The hot path (`HotAnswerHandler`) answers kept answers before the router: what it sends
/// must be what the router sends for the same request, and whatever it cannot judge must
/// reach the router. Two live servers share one runtime (so one `AnswerMemo`): one with the
/// hot path, one without.
@Suite(.serialized) struct HotPathTests {
    static let requestID = HTTPField.Name("X-Request-Id")!

    /// A clock that moves a microsecond per reading (no age or freshness ticks a whole second
    /// during a test, so a kept answer stays reusable throughout) and can be set.
    final class SteppingClock: Sendable {
        private let current: Mutex<Date>

        /// Starts at `start`: by default now, or ten minutes earlier within ten minutes before
        /// midnight in the demo's zone — tests step it by a minute or two, and a step past
        /// midnight makes "today" another day (every date-keyed section a miss; seen at 23:59).
        init(_ start: Date = SteppingClock.clearOfMidnight(Date())) {
            current = Mutex(start)
        }

        static func clearOfMidnight(_ now: Date) -> Date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = DemoHarness.zone
            guard let next = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)) else {
                return now
            }
            return next.timeIntervalSince(now) < 600 ? now.addingTimeInterval(-600) : now
        }

        func read() -> Date {
            current.withLock { now in
                now = now.addingTimeInterval(0.000_001)
                return now
            }
        }

        func set(_ date: Date) {
            current.withLock { $0 = date }
        }
    }

    func withBoth(
        clock: SteppingClock = SteppingClock(), adjust: (inout ProfileConfig) -> Void = { _ in },
        _ body:
            @Sendable (_ hot: any TestClientProtocol, _ plain: any TestClientProtocol, _ harness: DemoHarness)
            async throws -> Void
    ) async throws {
        let harness = try await DemoHarness.start(adjust: adjust, now: { clock.read() })
        do {
            try await GatewayApplication.make(runtime: harness.runtime, hotPath: true).test(.live) { hot in
                try await GatewayApplication.make(runtime: harness.runtime, hotPath: false).test(.live) { plain in
                    try await body(hot, plain, harness)
                }
            }
        } catch {
            await harness.close()
            throw error
        }
        await harness.close()
    }

    static func hotAnswers(_ client: any TestClientProtocol, headers: HTTPFields = [:]) async throws -> Int {
        let metrics = try await client.execute(uri: "/metrics", method: .get, headers: headers)
        let text = String(buffer: metrics.body)
        let line = text.split(separator: "\n").first { $0.hasPrefix("daygate_http_hot_answers_total ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Headers as a comparable set, without those that differ per response by design.
    static func comparable(_ fields: HTTPFields) -> [String: String] {
        var headers: [String: String] = [:]
        for field in fields where ![.date, requestID].contains(field.name) {
            headers[field.name.canonicalName, default: ""] += field.value
        }
        return headers
    }

    @Test func hotAnswersEqualTheRoutersAnswers() async throws {
        try await withBoth { hot, plain, harness in
            let cold = try await hot.execute(uri: "/v1/today", method: .get)
            #expect(cold.headers[HTTPField.Name("Cache-Status")!]?.contains("fwd=miss") == true)  // fetched: not kept
            let first = try await hot.execute(uri: "/v1/today", method: .get)
            #expect(first.status == .ok)
            #expect(try await Self.hotAnswers(hot) == 0)  // every section a fresh hit: composed by the router, kept

            let sections =
                try #require(first.headers[HTTPField.Name("Cache-Status")!]).components(separatedBy: "=hit").count - 1
            #expect(sections == harness.sections(of: "/v1/today").count)
            let hitsBefore = harness.runtime.cache.counters().hits
            for method in [HTTPRequest.Method.get, .head] {
                let viaHot = try await hot.execute(uri: "/v1/today", method: method)
                let viaRouter = try await plain.execute(uri: "/v1/today", method: method)
                #expect(viaHot.status == viaRouter.status)
                #expect(Self.comparable(viaHot.headers) == Self.comparable(viaRouter.headers), "\(method)")
                #expect(viaHot.body == viaRouter.body, "\(method)")
                #expect(viaHot.headers[Self.requestID]?.count == 13)
                #expect(viaHot.headers[.date] != nil)
            }
            // Four reuses (hot and router, GET and HEAD): each counts a hit for every section.
            #expect(harness.runtime.cache.counters().hits - hitsBefore == 4 * sections)
            // The status line too, which the typed answers above do not show: the hot path once
            // wrote `HTTP/1.1 200 ` (a kept answer's status has no reason phrase) where the
            // router writes `HTTP/1.1 200 OK`.
            var statusLines: [String] = []
            for port in [hot.port, plain.port] {
                let port = try #require(port)
                let request = "GET /v1/today HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: keep-alive\r\n\r\n"
                let outcome = RawFuzzRunner.exchange(
                    port: port, bytes: Array(request.utf8), waitMilliseconds: 10_000, headNoBody: false)
                let answer = String(decoding: outcome.data, as: UTF8.self)
                statusLines.append(answer.components(separatedBy: "\r\n").first ?? "")
            }
            #expect(statusLines == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"])
            #expect(harness.runtime.cache.counters().hits - hitsBefore == 6 * sections)
            let tag = try #require(first.headers[.eTag])
            let notModified = try await hot.execute(uri: "/v1/today", method: .get, headers: [.ifNoneMatch: tag])
            let routerNotModified = try await plain.execute(
                uri: "/v1/today", method: .get, headers: [.ifNoneMatch: tag])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.readableBytes == 0)
            #expect(Self.comparable(notModified.headers) == Self.comparable(routerNotModified.headers))

            let echoed = try await hot.execute(uri: "/v1/today", method: .get, headers: [Self.requestID: "trace-7"])
            #expect(echoed.headers[Self.requestID] == "trace-7")
            // GET, HEAD, the raw GET, the 304 and the echoed id: five answers on the hot path.
            #expect(try await Self.hotAnswers(hot) == 5)
        }
    }

    /// Home Assistant polls `/v1/summary`: it is kept and answered on the hot path like a route
    /// file's answer, byte for byte what the router gives, and its query rule (only `_` names)
    /// holds there too.
    @Test func theSummaryTakesTheHotPath() async throws {
        try await withBoth { hot, plain, _ in
            _ = try await hot.execute(uri: "/v1/summary", method: .get)  // fetched: not kept
            let composed = try await hot.execute(uri: "/v1/summary", method: .get)  // composed, kept
            #expect(composed.status == .ok)
            #expect(try await Self.hotAnswers(hot) == 0)
            let viaHot = try await hot.execute(uri: "/v1/summary?_=1", method: .get)
            let viaRouter = try await plain.execute(uri: "/v1/summary?_=1", method: .get)
            #expect(try await Self.hotAnswers(hot) == 1)
            #expect(viaHot.status == .ok)
            #expect(viaHot.body == viaRouter.body)
            #expect(Self.comparable(viaHot.headers) == Self.comparable(viaRouter.headers))
            let today = LocalDate.today(in: DemoHarness.zone).description
            let refused = try await hot.execute(uri: "/v1/summary?date=\(today)", method: .get)
            #expect(refused.status == .badRequest)
            #expect(try await Self.hotAnswers(hot) == 1)
        }
    }

    /// Routes with path parameters are the router's: each id gets its own item however often
    /// it is asked, and the path template itself is not a route the hot path knows.
    @Test func routesWithPathParametersAreTheRouters() async throws {
        try await withBoth { hot, plain, _ in
            let recent = try await hot.execute(uri: "/v1/knowledge/recent?limit=2", method: .get).json
            let ids = try #require(recent["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue })
            #expect(ids.count == 2)
            for _ in 0..<3 {
                for id in ids {
                    let viaHot = try await hot.execute(uri: "/v1/knowledge/items/\(id)", method: .get)
                    let viaRouter = try await plain.execute(uri: "/v1/knowledge/items/\(id)", method: .get)
                    #expect(try viaHot.json["item"]?["id"] == .string(id))
                    #expect(try viaHot.json["item"] == viaRouter.json["item"])
                }
            }
            let template = try await hot.execute(uri: "/v1/knowledge/items/%7Bid%7D", method: .get)
            #expect(template.status == .badRequest)
            #expect(try await Self.hotAnswers(hot) == 0)
        }
    }

    /// Answers written by the hot path go past SwiftNIO's response encoder: the encoder must not
    /// be left waiting for their heads (it once framed the router's next answer as the answer
    /// to a hot `HEAD`, without its body, and kept every hot request's method for good).
    @Test func aRouterAnswerAfterHotOnesOnTheSameConnectionKeepsItsBody() async throws {
        try await withBoth { hot, _, _ in
            _ = try await hot.execute(uri: "/v1/today", method: .get)
            _ = try await hot.execute(uri: "/v1/today", method: .get)  // now kept
            let port = try #require(hot.port)
            let client = try RawClient(port: port)
            client.send("HEAD /v1/today HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await client.wait(timeout: .seconds(5)) { $0.text.contains("\r\n\r\n") }
            client.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let answered = await client.wait(timeout: .seconds(5)) { $0.text.hasSuffix(#"{"status":"ok"}"#) }
            #expect(answered.held, "the router's answer after a hot HEAD: \(client.text)")
            #expect(try await Self.hotAnswers(hot) == 1)
            // And the router's own answer to a HEAD (an unknown path's 404) has no body either.
            client.send(
                "HEAD /nope HTTP/1.1\r\nHost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await client.wait(timeout: .seconds(5)) { $0.answers >= 4 && $0.text.hasSuffix(#"{"status":"ok"}"#) }
            let last = client.text.components(separatedBy: "HTTP/1.1 ").suffix(2)
            #expect(last.first?.hasPrefix("404") == true && last.first?.hasSuffix("\r\n\r\n") == true, "\(last)")
        }
    }

    /// A connection remembers what its last request resolved to (`HotAnswers.Recent`), but only
    /// for the same target, `Host` and `Authorization`: another key on the same connection is
    /// decided anew.
    @Test func aConnectionsMemoryOfItsLastRequestHoldsOnlyForTheSameCredentials() async throws {
        let key = "hot-path-key-0123456789"
        let harness = try await DemoHarness.start(clients: [ClientConfig(name: "hall", key: key, profile: "default")])
        do {
            try await GatewayApplication.make(runtime: harness.runtime).test(.live) { client in
                let auth: HTTPFields = [.authorization: "Bearer \(key)"]
                _ = try await client.execute(uri: "/v1/today", method: .get, headers: auth)
                _ = try await client.execute(uri: "/v1/today", method: .get, headers: auth)  // kept
                let port = try #require(client.port)
                let raw = try RawClient(port: port)
                for (number, presented) in [key, key, "not-the-key-0123456789", key].enumerated() {
                    raw.send("GET /v1/today HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(presented)\r\n\r\n")
                    await raw.wait(timeout: .seconds(5)) { $0.answers > number && $0.text.hasSuffix("}") }
                }
                let statuses = raw.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
                #expect(statuses == ["200", "200", "401", "200"], "\(raw.text.prefix(300))")
                #expect(try await Self.hotAnswers(client, headers: auth) >= 3)
            }
        } catch {
            await harness.close()
            throw error
        }
        await harness.close()
    }

    @Test func whatTheHotPathCannotJudgeReachesTheRouter() async throws {
        try await withBoth { hot, _, _ in
            _ = try await hot.execute(uri: "/v1/today", method: .get)
            _ = try await hot.execute(uri: "/v1/today", method: .get)
            let refused = try await hot.execute(uri: "/v1/today?nope=1", method: .get)
            #expect(refused.status == .badRequest)
            #expect(String(buffer: refused.body).contains("unknown parameter"))
            // (A foreign Host reaching the router is SecurityTests.loopbackModeChecksTheHostHeader,
            // whose repeated requests run through the hot path.)
            let refreshed = try await hot.execute(uri: "/v1/today", method: .get, headers: [.cacheControl: "no-cache"])
            #expect(refreshed.headers[HTTPField.Name("Cache-Status")!]?.contains("fwd=request") == true)
            let cors = try await hot.execute(
                uri: "/v1/today", method: .get, headers: [.origin: "http://elsewhere.example"])
            #expect(cors.status == .ok)
            #expect(cors.headers[.accessControlAllowOrigin] == nil)
            let post = try await hot.execute(
                uri: "/v1/today", method: .post, headers: [.contentType: "application/json"], body: .init(string: "{}"))
            #expect(post.status.code >= 400)
            #expect(try await Self.hotAnswers(hot) == 0)
        }
    }

    @Test func aChangedEntryIsNeverAnsweredFromAnOlderKeptAnswer() async throws {
        try await withBoth { hot, _, harness in
            _ = try await hot.execute(uri: "/v1/today", method: .get)  // fetched
            let before = try await hot.execute(uri: "/v1/today", method: .get)  // composed, kept
            _ = try await hot.execute(uri: "/v1/today", method: .get)  // the kept answer
            #expect(try await Self.hotAnswers(hot) == 1)
            // A write drops the plan's entries: the kept answer must not be given again.
            await harness.runtime.cache.invalidate(profile: "default", operation: "tickedify.daily_plan")
            let after = try await hot.execute(uri: "/v1/today", method: .get)
            #expect(after.headers[HTTPField.Name("Cache-Status")!]?.contains("plan=miss") == true)
            #expect(try await Self.hotAnswers(hot) == 1)
            #expect(before.status == .ok && after.status == .ok)
        }
    }

    /// While stale entries are being refreshed the answer built from them is kept too (a burst
    /// then stays cheap and cannot starve the refresh); it counts stale serves, and once the
    /// refresh has ended the next answer is built from the fresh data.
    @Test func anAnswerBeingRefreshedIsKeptUntilTheRefreshEnds() async throws {
        let clock = SteppingClock()
        // Without the calendars: a feed's copy serves within its refresh interval, so their
        // section's refresh ends at once (and rightly ends the kept answer).
        try await withBoth(clock: clock, adjust: { $0.ics = nil }) { hot, _, harness in
            _ = try await hot.execute(uri: "/v1/today", method: .get)  // fetched
            for kind in SimulatorKind.demoKinds {
                _ = try await harness.call(kind, .POST, "/_sim/faults", json: #"{"latency_ms":400}"#)
            }
            clock.set(clock.read().addingTimeInterval(61))  // past the shortest freshness (60 s)
            let cacheStatus = HTTPField.Name("Cache-Status")!
            let first = try await hot.execute(uri: "/v1/today", method: .get)  // starts the refreshes
            let stale = try #require(first.headers[cacheStatus])
            #expect(stale.contains("hit-stale"))
            let staleSections = stale.components(separatedBy: "=hit-stale").count - 1
            let before = harness.runtime.cache.counters()
            let again = try await hot.execute(uri: "/v1/today", method: .get)
            #expect(try await Self.hotAnswers(hot) == 1)
            #expect(again.body == first.body)
            let after = harness.runtime.cache.counters()
            #expect(after.staleServes - before.staleServes == staleSections)
            #expect(after.hits - before.hits == harness.sections(of: "/v1/today").count - staleSections)
            #expect(after.fetches == before.fetches, "the kept answer starts no fetch")

            // The refreshes end (400 ms; the plan's two calls 800 ms): the next answer is fresh.
            var refreshed = false
            for _ in 0..<50 where !refreshed {
                try await Task.sleep(for: .milliseconds(100))
                let response = try await hot.execute(uri: "/v1/today", method: .get)
                refreshed = response.headers[cacheStatus]?.contains("stale") == false
            }
            #expect(refreshed, "still stale 5 s after the refreshes started")
        }
    }

    /// When a kept answer's ages tick the hot path ages it again from its own lookups and goes on
    /// answering (no composition through the router, no fetch): what it sends then is what a
    /// composition at that moment gives, with the same validator.
    @Test func whenItsAgesTickAKeptAnswerIsAgedOnTheHotPath() async throws {
        let clock = SteppingClock()
        try await withBoth(clock: clock) { hot, _, harness in
            _ = try await hot.execute(uri: "/v1/today", method: .get)  // fetched
            let kept = try await hot.execute(uri: "/v1/today", method: .get)  // composed by the router, kept
            #expect(try await Self.hotAnswers(hot) == 0)
            let fetches = harness.runtime.cache.counters().fetches

            clock.set(clock.read().addingTimeInterval(5))  // every age ticked five times; all still fresh
            let aged = try await hot.execute(uri: "/v1/today", method: .get)
            #expect(try await Self.hotAnswers(hot) == 1, "aged on the hot path, not composed by the router")
            #expect(harness.runtime.cache.counters().fetches == fetches)
            let keptAge = try #require(kept.headers[.age].flatMap { Int($0) })
            #expect(aged.headers[.age] == String(keptAge + 5))
            #expect(aged.headers[.eTag] == kept.headers[.eTag])

            let route = try #require(harness.runtime.routes.first { $0.path == "/v1/today" })
            let composed = try await harness.runtime.aggregator.run(route: route, query: [], profileName: "default")
            #expect(aged.headers[.age] == String(composed.ageSeconds))
            #expect(aged.headers[.cacheControl] == composed.maxAge.map { "private, max-age=\($0)" })
            #expect(try Self.withoutDurations(Data(buffer: aged.body)) == Self.withoutDurations(composed.body))
        }
    }

    /// The summary is made of a route's answer: at a tick it is aged as a summary (what is next
    /// read again too), never as the answer it was made from.
    @Test func whenItsAgesTickTheSummaryIsAgedAsTheSummary() async throws {
        let clock = SteppingClock()
        try await withBoth(clock: clock) { hot, _, harness in
            _ = try await hot.execute(uri: "/v1/summary", method: .get)  // fetched
            let kept = try await hot.execute(uri: "/v1/summary", method: .get)  // composed, kept
            #expect(try await Self.hotAnswers(hot) == 0)

            clock.set(clock.read().addingTimeInterval(5))
            let aged = try await hot.execute(uri: "/v1/summary", method: .get)
            #expect(try await Self.hotAnswers(hot) == 1, "aged on the hot path")
            #expect(aged.headers[.eTag] == kept.headers[.eTag])
            let composed = try await harness.runtime.summary.run(profileName: "default", forceRefresh: false)
            #expect(aged.headers[.age] == String(composed.ageSeconds))
            #expect(try Self.withoutDurations(Data(buffer: aged.body)) == Self.withoutDurations(composed.body))
        }
    }

    /// A body without each section's `duration_ms` (a lookup's own time).
    static func withoutDurations(_ body: Data) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        var sections = try #require(object["sections"] as? [String: [String: Any]])
        for name in sections.keys { sections[name]?["duration_ms"] = nil }
        object["sections"] = sections
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// HTTP/1.0 (the connection closes after the answer) and absolute-form targets are the
    /// router's to judge, even for a kept answer.
    @Test func otherVersionsAndTargetFormsReachTheRouter() async throws {
        try await withBoth { hot, _, _ in
            _ = try await hot.execute(uri: "/v1/today", method: .get)
            _ = try await hot.execute(uri: "/v1/today", method: .get)  // kept from here on
            let port = try #require(hot.port)
            for request in [
                "GET /v1/today HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n",
                "GET http://127.0.0.1:\(port)/v1/today HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n",
            ] {
                let outcome = RawFuzzRunner.exchange(
                    port: port, bytes: Array(request.utf8), waitMilliseconds: 10_000, headNoBody: false)
                let answer = String(decoding: outcome.data, as: UTF8.self)
                #expect(
                    answer.hasPrefix("HTTP/1.1 200 OK\r\n") || answer.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(request)")
                #expect(answer.contains("\"plan\""), "\(request)")
            }
            #expect(try await Self.hotAnswers(hot) == 0)
        }
    }

    /// A kept answer for "today" is never given once the day has turned, even while it is
    /// still reusable by the clock: the request resolves to the new day's answer.
    @Test func aKeptAnswerForTodayIsNotGivenAfterMidnight() async throws {
        let zone = DemoHarness.zone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let tomorrow = try #require(calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: Date())))
        let clock = SteppingClock(tomorrow.addingTimeInterval(-0.6))  // 23:59:59.4
        try await withBoth(clock: clock) { hot, _, _ in
            func day(_ response: TestResponse) throws -> String {
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                return try #require(object?["date"] as? String)
            }
            _ = try await hot.execute(uri: "/v1/today", method: .get)
            _ = try await hot.execute(uri: "/v1/today", method: .get)
            let before = try await hot.execute(uri: "/v1/today", method: .get)
            #expect(try await Self.hotAnswers(hot) == 1)
            clock.set(tomorrow.addingTimeInterval(0.2))  // 00:00:00.2, within a second of the fetch
            let after = try await hot.execute(uri: "/v1/today", method: .get)
            #expect(try await Self.hotAnswers(hot) == 1)
            #expect(try day(after) != day(before))
            #expect(try day(after) == LocalDate.today(in: zone, now: tomorrow.addingTimeInterval(0.2)).description)
        }
    }

    /// Pipelined requests, some answered on the hot path and some by the router, get their
    /// answers in the order they were sent.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withBoth { hot, _, _ in
            _ = try await hot.execute(uri: "/v1/today", method: .get)
            _ = try await hot.execute(uri: "/v1/today", method: .get)  // kept from here on
            let port = try #require(hot.port)
            let host = "Host: 127.0.0.1:\(port)\r\n"
            // The first is answered on the hot path; once one is passed on to the router, the rest
            // follow it there (an answer written early would overtake it).
            let sequence = ["/v1/today", "/v1/events?from=2026-01-01&to=2026-01-02", "/v1/today", "/nope", "/v1/today"]
            var text = ""
            for (index, path) in sequence.enumerated() {
                text += "GET \(path) HTTP/1.1\r\n\(host)X-Request-Id: order-\(index)\r\n\r\n"
            }
            text += "GET /healthz HTTP/1.1\r\n\(host)X-Request-Id: order-last\r\nConnection: close\r\n\r\n"
            let outcome = RawFuzzRunner.exchange(
                port: port, bytes: Array(text.utf8), waitMilliseconds: 10_000, headNoBody: true)
            let answer = String(decoding: outcome.data, as: UTF8.self).lowercased()
            let positions = (sequence.indices.map { "order-\($0)" } + ["order-last"]).map { id in
                answer.range(of: "x-request-id: \(id)\r\n")?.lowerBound
            }
            #expect(positions.allSatisfy { $0 != nil }, "every request answered")
            let found = positions.compactMap { $0 }
            #expect(found == found.sorted(), "answers in the order sent")
            #expect(try await Self.hotAnswers(hot) == 1)
        }
    }
}
