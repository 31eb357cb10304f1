import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Testing

@testable import daygate

/// The household's day (`/v1/household/today`, `/v1/household/summary`) against the demo's
/// household of three, and keys with scopes: a read-only key writes nothing on any write route.
@Suite("Household and key scopes")
struct HouseholdTests {
    static let anna = ClientConfig(name: "anna-phone", key: "anna-key-0123456789abcdef", profile: "default")
    static let bas = ClientConfig(name: "bas-phone", key: "bas-key-0123456789abcdef", profile: "bas")
    static let mila = ClientConfig(name: "mila-tablet", key: "mila-key-0123456789abcdef", profile: "mila")
    /// What a wall display gets: it reads, and reads the household.
    static let wall = ClientConfig(
        name: "wall", key: "wall-key-0123456789abcdef", profile: "default", scopes: [.read, .household])
    /// A key that reads the household and nothing of its own profile.
    static let householdOnly = ClientConfig(
        name: "hall", key: "hall-key-0123456789abcdef", profile: "default", scopes: [.household])
    static let clients = [anna, bas, mila, wall, householdOnly]

    static func bearer(_ client: ClientConfig) -> HTTPFields {
        [.authorization: "Bearer \(client.key)"]
    }

    static func totalCalls(_ demo: DemoHarness) -> Int {
        SimulatorKind.demoKinds.reduce(0) { $0 + demo.simulator($1).control.totalCalls }
    }

    /// Every route of the router that is not a read (enumerated from the router itself, so a
    /// write route added later is covered), asked with a read-only key and a JSON body: each is
    /// 403 `insufficient_scope`, and no simulator sees a single call.
    @Test func aReadOnlyKeyWritesNothingOnAnyWriteRoute() async throws {
        try await withDemo(clients: Self.clients, household: true) { demo in
            let writes = GatewayApplication.router(runtime: demo.runtime).routes
                .filter { ![.get, .head].contains($0.method) }
                .map { (path: RouteSpellingTests.concrete($0.path), method: $0.method) }
            #expect(writes.count >= 10, "the router's own table of writes: \(writes.count)")
            try await demo.test { client in
                for simulator in SimulatorKind.demoKinds { demo.simulator(simulator).control.resetStats() }
                for key in [Self.wall, Self.householdOnly] {
                    for write in writes {
                        var headers = Self.bearer(key)
                        headers[.contentType] = "application/json"
                        let response = try await client.execute(
                            uri: write.path, method: write.method, headers: headers,
                            body: ByteBuffer(string: #"{"title":"x","text":"x","name":"x"}"#))
                        #expect(response.status == .forbidden, "\(write.method) \(write.path) with \(key.name)")
                        #expect(
                            try response.json["error"]?["code"]?.stringValue == "insufficient_scope",
                            "\(write.method) \(write.path): \(String(buffer: response.body).prefix(200))")
                    }
                }
                #expect(Self.totalCalls(demo) == 0, "no backend was called: \(Self.totalCalls(demo))")
                // The same key reads.
                let today = try await client.execute(uri: "/v1/today", method: .get, headers: Self.bearer(Self.wall))
                #expect(today.status == .ok)
                // And a key with write writes (the refusals were the scope's, not the route's).
                var headers = Self.bearer(Self.anna)
                headers[.contentType] = "application/json"
                let added = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: headers, body: ByteBuffer(string: #"{"title":"Melk"}"#))
                #expect(added.status == .created || added.status == .ok, "\(String(buffer: added.body).prefix(200))")
            }
        }
    }

    /// The household routes need the `household` scope; a key with only that scope reads them and
    /// not its own profile's routes.
    @Test func theHouseholdScopeDecidesWhoReadsTheHousehold() async throws {
        try await withDemo(clients: Self.clients, household: true) { demo in
            try await demo.test { client in
                for path in ["/v1/household/today", "/v1/household/summary"] {
                    let refused = try await client.execute(uri: path, method: .get, headers: Self.bearer(Self.anna))
                    #expect(refused.status == .forbidden, "\(path)")
                    #expect(try refused.json["error"]?["code"]?.stringValue == "insufficient_scope")
                    #expect(try refused.json["error"]?["message"]?.stringValue?.contains("household") == true)
                    let served = try await client.execute(
                        uri: path, method: .get, headers: Self.bearer(Self.householdOnly))
                    #expect(served.status == .ok, "\(path): \(String(buffer: served.body).prefix(200))")
                }
                let own = try await client.execute(
                    uri: "/v1/today", method: .get, headers: Self.bearer(Self.householdOnly))
                #expect(own.status == .forbidden)
                #expect(try own.json["error"]?["code"]?.stringValue == "insufficient_scope")
            }
        }
    }

    /// Every member's day in one answer, from the same cache entries as their own days: once
    /// each member has asked for their day, the household's costs no upstream call. Events of
    /// the calendars all three subscribe to appear once, marked shared; Anna's own are hers.
    @Test func theHouseholdsDayIsEveryMembersDayFromTheSameCache() async throws {
        try await withDemo(clients: Self.clients, household: true) { demo in
            try await demo.test { client in
                for member in [Self.anna, Self.bas, Self.mila] {
                    for path in ["/v1/today", "/v1/tasks/counts"] {
                        let own = try await client.execute(uri: path, method: .get, headers: Self.bearer(member))
                        #expect(own.status == .ok || own.status == .badGateway, "\(member.name) \(path)")
                    }
                }
                for simulator in SimulatorKind.demoKinds { demo.simulator(simulator).control.resetStats() }
                let response = try await client.execute(
                    uri: "/v1/household/today", method: .get, headers: Self.bearer(Self.wall))
                #expect(response.status == .ok)
                #expect(
                    Self.totalCalls(demo) == 0,
                    "every member's sections were fresh: \(SimulatorKind.demoKinds.map { demo.simulator($0).control.callCounts })"
                )
                let day = try response.json
                #expect(day["household"]?["name"]?.stringValue == "De Vries")
                #expect(day["household"]?["night"]?.stringValue == "22:30-06:30")
                let members = day["members"]?.arrayValue ?? []
                #expect(members.map { $0["id"]?.stringValue } == ["anna", "bas", "mila"])
                #expect(members.map { $0["color"]?.stringValue } == ["#2563eb", "#15803d", "#be185d"])
                for member in members {
                    #expect(member["events"] == nil, "events are at the top, not in a member")
                    #expect(member["date"] == nil, "the date is at the top")
                    for (name, report) in member["sections"]?.objectValue?.fields ?? [] {
                        #expect(report["status"]?.stringValue == "ok", "\(member["id"]!) \(name)")
                    }
                }
                // Mila shares no meals and has no Tickedify: no such sections of hers.
                #expect(members[2]["nutrition"] == nil && members[2]["sections"]?["nutrition"] == nil)
                #expect(members[2]["plan"] == nil)
                #expect(members[1]["nutrition"]?["goal_calories"]?.numberValue == 2600)
                let events = day["events"]?.arrayValue ?? []
                let shared = events.filter { $0["shared"]?.boolValue == true }
                #expect(!shared.isEmpty, "the school's calendar is everyone's")
                for event in shared {
                    #expect(event["members"]?.arrayValue?.compactMap(\.stringValue) == ["anna", "bas", "mila"])
                    #expect(event["member"] == nil)
                }
                let titles = shared.compactMap { $0["title"]?.stringValue }
                #expect(Set(titles).count == titles.count, "a shared event once: \(titles)")
                let annas = events.filter { $0["member"]?.stringValue == "anna" }
                #expect(annas.contains { $0["title"]?.stringValue == "Standup" }, "Anna's 8alls events are hers")
                let starts = events.compactMap { $0["start"]?.stringValue.flatMap { LenientDate.parse($0) } }
                #expect(starts == starts.sorted(), "one timeline, by start")
            }
        }
    }

    /// Per-person values for Home Assistant: every member's summary under their id.
    @Test func theHouseholdSummaryHasEveryMembersValues() async throws {
        try await withDemo(clients: Self.clients, household: true) { demo in
            try await demo.test { client in
                let response = try await client.execute(
                    uri: "/v1/household/summary", method: .get, headers: Self.bearer(Self.wall))
                #expect(response.status == .ok)
                let summary = try response.json
                let members = summary["members"]?.objectValue
                #expect(members?.keys.sorted() == ["anna", "bas", "mila"])
                #expect(summary["members"]?["anna"]?["name"]?.stringValue == "Anna")
                #expect(summary["members"]?["mila"]?["date"] == nil)
                #expect(summary["date"]?.stringValue != nil)
                // Meals only where shared.
                #expect(summary["members"]?["anna"]?["sections"]?["nutrition"] != nil)
                #expect(summary["members"]?["mila"]?["sections"]?["nutrition"] == nil)
                let unknown = try await client.execute(
                    uri: "/v1/household/summary?date=2026-01-01", method: .get, headers: Self.bearer(Self.wall))
                #expect(unknown.status == .badRequest)
            }
        }
    }

    /// `/v1/household/stream`: a change of any member's profile reaches the wall, naming the
    /// member; `/v1/stream` of the same key hears its own profile only.
    @Test func theHouseholdStreamNamesTheMemberWhoseDataChanged() async throws {
        try await withDemo(clients: Self.clients, household: true) { demo in
            let gateway = ReloadableGateway(runtime: demo.runtime, heartbeat: .seconds(30))
            try await withServedGateway(gateway) { port in
                func open(_ path: String) async throws -> RawClient {
                    let stream = try RawClient(port: port)
                    stream.send(
                        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.wall.key)\r\n\r\n")
                    await stream.wait(timeout: .seconds(10)) { $0.text.contains("event: hello") || $0.closed }
                    return stream
                }
                let household = try await open("/v1/household/stream")
                let own = try await open("/v1/stream")
                defer {
                    household.close()
                    own.close()
                }
                #expect(household.status == 200 && own.status == 200)
                let mark = own.received.count
                // Bas's day is fetched: a change of his profile.
                let bas = try RawClient(port: port)
                defer { bas.close() }
                bas.send("GET /v1/today HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.bas.key)\r\n\r\n")
                let (heard, _) = await household.wait(timeout: .seconds(10)) {
                    $0.text.contains(#""member":"bas""#)
                }
                #expect(heard, "\(household.text.suffix(400))")
                #expect(!household.text.contains(#""member":"anna""#), "nothing of Anna's changed")
                await bas.wait(timeout: .seconds(10)) { $0.text.contains("\r\n\r\n") }
                #expect(
                    !String(decoding: own.received[mark...], as: UTF8.self).contains("event: change"),
                    "the wall's own profile (Anna's) did not change")
            }
        }
    }

    /// Without a household in the config the household routes are a 404 of the gateway's shape.
    @Test func withoutAHouseholdTheRoutesSaySo() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                for path in ["/v1/household/today", "/v1/household/summary", "/v1/household/stream"] {
                    let response = try await client.execute(uri: path, method: .get)
                    #expect(response.status == .notFound)
                    #expect(try response.json["error"]?["code"]?.stringValue == "no_household")
                }
            }
        }
    }
}
