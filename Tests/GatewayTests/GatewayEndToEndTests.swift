import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import Simulators
import Testing

@Suite("Gateway end to end on 8alls")
struct GatewayEndToEndTests {
    @Test(arguments: EightAllsSimulator.DateStyle.allCases)
    func eventsOfTodayThenACacheHit(style: EightAllsSimulator.DateStyle) async throws {
        try await withHarness(dateStyle: style) { harness in
            try await harness.test { client in
                let first = try await client.execute(uri: "/v1/events", method: .get)
                #expect(first.status == .ok)
                #expect(first.headers[.contentType] == "application/json; charset=utf-8")
                let body = try first.json
                #expect(body["complete"] == .bool(true))
                #expect(body["stale"] == .bool(false))
                #expect(body["date"] == .string(LocalDate.today(in: GatewayHarness.zone).description))
                #expect(body["sections"]?["events"]?["status"] == .string("ok"))
                #expect(body["sections"]?["events"]?["cache"] == .string("miss"))
                #expect(body["sections"]?["events"]?["backend"] == .string("eightalls"))
                let events = try #require(body["events"]?.arrayValue)
                let titles = events.compactMap { $0["title"]?.stringValue }
                #expect(titles.contains("Standup"))
                #expect(titles.contains("Design review"))
                let review = try #require(events.first { $0["title"] == .string("Design review") })
                #expect(review["location"] == .string("Room 2"))
                let start = try #require(review["start"]?.stringValue)
                #expect(
                    start.hasSuffix("T14:00:00+01:00") || start.hasSuffix("T14:00:00+02:00"),
                    "local time with offset, got \(start)")
                let starts = events.compactMap { $0["start"]?.stringValue }.compactMap { LenientDate.parse($0) }
                #expect(starts == starts.sorted())

                let second = try await client.execute(uri: "/v1/events", method: .get)
                let again = try second.json
                #expect(again["sections"]?["events"]?["cache"] == .string("hit"))
                #expect(again["events"] == body["events"])
                #expect(second.headers[.cacheControl]?.hasPrefix("private, max-age=") == true)
            }
            #expect(try await harness.eventsCalls() == 1)
        }
    }

    @Test func hundredConcurrentRequestsOnAColdKeyMakeOneUpstreamCall() async throws {
        try await withHarness { harness in
            _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"latency_ms":200}"#)
            // The simulator's seeded week is around today (a fixed date left it after 2026-11-26).
            let day = LocalDate.today(in: GatewayHarness.zone)
            let answers = try await harness.test { client in
                try await withThrowingTaskGroup(of: (HTTPResponse.Status, JSONValue).self) { group in
                    for _ in 0..<100 {
                        group.addTask {
                            let response = try await client.execute(uri: "/v1/events?date=\(day)", method: .get)
                            return (response.status, try response.json)
                        }
                    }
                    var all: [(HTTPResponse.Status, JSONValue)] = []
                    for try await answer in group { all.append(answer) }
                    return all
                }
            }
            #expect(answers.count == 100)
            #expect(try await harness.eventsCalls() == 1, "one upstream call for 100 concurrent requests")
            // On a loaded machine a request may pass the route's 2 s deadline: that one is a 504
            // (the fetch still fills the cache); every other answer carries the events.
            #expect(answers.allSatisfy { $0.0 == .ok || $0.0 == .gatewayTimeout })
            let ok = answers.filter { $0.0 == .ok }
            #expect(!ok.isEmpty)
            #expect(ok.allSatisfy { ($0.1["events"]?.arrayValue?.count ?? 0) > 0 })
        }
    }

    @Test func rangeAndDateShareTheirCacheEntry() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                let today = LocalDate.today(in: GatewayHarness.zone).description
                let byDate = try await client.execute(uri: "/v1/events?date=\(today)", method: .get).json
                let byRange = try await client.execute(uri: "/v1/events?from=\(today)&to=\(today)", method: .get).json
                #expect(byRange["sections"]?["events"]?["cache"] == .string("hit"))
                #expect(byRange["events"] == byDate["events"])
                #expect(byRange["date"] == nil, "no default date when a range is given")

                let week = try await client.execute(
                    uri:
                        "/v1/events?from=\(LocalDate(today)!.adding(days: -3))&to=\(LocalDate(today)!.adding(days: 3))",
                    method: .get
                ).json
                #expect((week["events"]?.arrayValue?.count ?? 0) > (byDate["events"]?.arrayValue?.count ?? 0))

                let meetings = try await client.execute(uri: "/v1/events?type=meeting&status=confirmed", method: .get)
                    .json
                let kinds = Set(meetings["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? [])
                #expect(kinds == ["meeting"])
            }
        }
    }

    @Test func downSimulatorNoCacheGetsTheCachedEventsMarkedStale() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                let fresh = try await client.execute(uri: "/v1/events", method: .get).json
                _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"down":"reset"}"#)
                let response = try await client.execute(
                    uri: "/v1/events", method: .get, headers: [.cacheControl: "no-cache"])
                #expect(response.status == .ok)
                let body = try response.json
                #expect(body["stale"] == .bool(true))
                #expect(body["complete"] == .bool(false))
                #expect(body["sections"]?["events"]?["status"] == .string("stale"))
                #expect(body["sections"]?["events"]?["cache"] == .string("stale"))
                #expect(body["sections"]?["events"]?["error"]?["code"] == .string("upstream_unreachable"))
                #expect(body["events"] == fresh["events"])
                #expect(response.headers[.cacheControl] == "private, no-cache")

                _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"error_status":500}"#)
                let other = try await client.execute(uri: "/v1/events?date=2020-01-01", method: .get)
                #expect(other.status == .badGateway)
                let failed = try other.json
                #expect(failed["sections"]?["events"]?["status"] == .string("error"))
                #expect(failed["sections"]?["events"]?["error"]?["message"]?.stringValue?.contains("500") == true)
                #expect(failed["events"] == .null)
            }
        }
    }

    @Test func slowSimulatorWithoutCacheIs504() async throws {
        try await withHarness { harness in
            _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"latency_ms":4000}"#)
            try await harness.test { client in
                let response = try await client.execute(uri: "/v1/events", method: .get)
                #expect(response.status == .gatewayTimeout)
                let body = try response.json
                #expect(body["sections"]?["events"]?["status"] == .string("timeout"))
                #expect(body["sections"]?["events"]?["error"]?["message"] == .string("eightalls did not answer in 2 s"))
            }
        }
    }

    @Test func garbageFromTheBackendIsReported() async throws {
        try await withHarness { harness in
            _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"garbage":true}"#)
            try await harness.test { client in
                let response = try await client.execute(uri: "/v1/events", method: .get)
                #expect(response.status == .badGateway)
                #expect(try response.json["sections"]?["events"]?["error"]?["code"] == .string("upstream_bad_response"))
            }
        }
    }

    @Test func theCacheSurvivesARestart() async throws {
        try await withHarness { harness in
            let first = try await harness.test { client in
                try await client.execute(uri: "/v1/today", method: .get).json
            }
            _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"down":"refuse"}"#)
            let restarted = try harness.restarted()
            let body = try await GatewayApplication.make(runtime: restarted.runtime).test(.router) { client in
                try await client.execute(uri: "/v1/today", method: .get).json
            }
            #expect(body["sections"]?["events"]?["cache"] == .string("hit"))
            #expect(body["events"] == first["events"])
            #expect(try await harness.eventsCalls() == 1)
        }
    }

    @Test func badInputGets400JSON() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                let cases: [(String, String)] = [
                    ("/v1/events?date=2026-13-45", "date must be a date YYYY-MM-DD"),
                    ("/v1/events?date=tomorrow", "date must be a date YYYY-MM-DD"),
                    ("/v1/events?from=2026-11-20", "from needs to as well"),
                    ("/v1/events?from=2026-11-22&to=2026-11-20", "to (2026-11-20) is before from (2026-11-22)"),
                    ("/v1/events?from=2026-01-01&to=2027-12-31", "from…to spans 730 days; at most 366"),
                    ("/v1/events?status=maybe", "status must be one of confirmed, tentative, cancelled"),
                    ("/v1/events?colour=red", "unknown parameter \"colour\""),
                    ("/v1/events?date=%zz", "date has a malformed percent-escape"),
                    ("/v1/events?type=\(String(repeating: "x", count: 51))", "type is 51 characters long; at most 50"),
                ]
                for (uri, message) in cases {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                    let body = try response.json
                    #expect(body["error"]?["code"] == .string("bad_parameter"), "\(uri)")
                    #expect(
                        body["error"]?["message"]?.stringValue?.hasPrefix(message) == true,
                        "\(uri): \(String(describing: body["error"]?["message"]))")
                }
                let missing = try await client.execute(uri: "/v1/nothing", method: .get)
                #expect(missing.status == .notFound)
                #expect(try missing.json["error"]?["code"] == .string("not_found"))
            }
            #expect(try await harness.eventsCalls() == 0, "bad input never reaches the backend")
        }
    }

    /// A known path asked with a method it does not answer is a 405 naming the methods it
    /// does answer (from the router's own table); an unknown path stays a 404.
    @Test func aWrongMethodOnAKnownPathIs405() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                let json: HTTPFields = [.contentType: "application/json"]
                let cases: [(String, HTTPRequest.Method, String)] = [
                    ("/v1/events", .delete, "GET, HEAD, POST"),
                    ("/v1/today", .post, "GET, HEAD"),
                    ("/healthz", .put, "GET, HEAD"),
                    ("/v1/events/evt-1", .get, "DELETE, PUT"),
                    ("/v1/diensten/d-1/volunteers/Eva", .post, "DELETE"),
                ]
                for (uri, method, allowed) in cases {
                    let response = try await client.execute(
                        uri: uri, method: method, headers: json, body: ByteBuffer(string: "{}"))
                    #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                    #expect(response.headers[.allow] == allowed, "\(method) \(uri)")
                    let body = try response.json
                    #expect(body["error"]?["code"] == .string("method_not_allowed"), "\(method) \(uri)")
                    #expect(
                        body["error"]?["message"]?.stringValue?.contains("allowed: \(allowed)") == true,
                        "\(method) \(uri)")
                }
                let unknown = try await client.execute(
                    uri: "/v1/nothing", method: .post, headers: json, body: ByteBuffer(string: "{}"))
                #expect(unknown.status == .notFound)
                let deeper = try await client.execute(uri: "/v1/events/evt-1/more", method: .get)
                #expect(deeper.status == .notFound)
            }
            #expect(try await harness.eventsCalls() == 0, "a wrong method never reaches the backend")
        }
    }

    @Test func healthAndReadiness() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                let health = try await client.execute(uri: "/healthz", method: .get)
                #expect(health.status == .ok)
                #expect(try health.json["status"] == .string("ok"))
                let ready = try await client.execute(uri: "/readyz", method: .get)
                #expect(ready.status == .ok)
                let body = try ready.json
                #expect(body["status"] == .string("ready"))
                #expect(
                    body["checks"] == .object(["config": .bool(true), "routes": .bool(true), "cache": .bool(true)]))
                let withID = try await client.execute(
                    uri: "/healthz", method: .get, headers: [HTTPField.Name("X-Request-Id")!: "abc-123"])
                #expect(withID.headers[HTTPField.Name("X-Request-Id")!] == "abc-123")
            }
        }
    }
}
