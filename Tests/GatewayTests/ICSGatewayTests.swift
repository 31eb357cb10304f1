import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Testing

@testable import Gateway

/// The subscribed calendars through the gateway, against the ICS simulator: conditional GET
/// after each calendar's refresh interval, a changed feed showing, a feed that is down serving
/// its last copy, `/v1/calendars`, and no secret address or credential anywhere.
@Suite("ICS through the gateway")
struct ICSGatewayTests {
    static let noCache: HTTPFields = [.cacheControl: "no-cache"]

    func events(_ demo: DemoHarness) async throws -> JSONValue {
        try await demo.test { client in
            try await client.execute(uri: "/v1/events", method: .get, headers: Self.noCache).json
        }
    }

    func titles(_ body: JSONValue, calendar: String) -> [String] {
        (body["events"]?.arrayValue ?? []).filter { $0["calendar"] == .string(calendar) }.compactMap {
            $0["title"]?.stringValue
        }
    }

    func rawPost(_ demo: DemoHarness, _ path: String, body: String) async throws {
        var request = HTTPClientRequest(url: demo.simulator(.ics).baseURL + path)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        #expect(response.status.code < 300)
    }

    @Test func feedsAreAskedConditionallyOncePerRefreshAndChangesShow() async throws {
        // At noon of the local day: the 1,901 s below must not cross midnight (from 23:29 on it
        // did, and the new event was on "yesterday").
        let clock = HotPathTests.SteppingClock(
            LocalDate.today(in: DemoHarness.zone).date(hour: 12, minute: 0, in: DemoHarness.zone))
        try await withDemo(now: { clock.read() }) { demo in
            let first = try await events(demo)
            #expect(first["sections"]?["subscribed"]?["status"] == .string("ok"))
            #expect(!titles(first, calendar: "school").isEmpty)
            let fetched = demo.calls(.ics, "GET /calendars/school.ics")
            #expect(fetched == 1)

            // Within the refresh interval (15 min) a forced refresh reads the kept copy.
            clock.set(clock.read().addingTimeInterval(600))
            _ = try await events(demo)
            #expect(demo.calls(.ics, "GET /calendars/school.ics") == 1)

            // After it: one conditional GET, answered 304.
            clock.set(clock.read().addingTimeInterval(400))
            _ = try await events(demo)
            #expect(demo.calls(.ics, "GET /calendars/school.ics") == 2)
            let counts = try await demo.call(.ics, .GET, "/_sim/calls")
            #expect((counts["not_modified"]?.objectValue?.values.compactMap(\.numberValue).reduce(0, +) ?? 0) >= 4)

            // The school changes its calendar: after the next refresh the new event shows.
            let today = LocalDate.today(in: DemoHarness.zone, now: clock.read())
            let day = today.description.replacingOccurrences(of: "-", with: "")
            try await rawPost(
                demo, "/_sim/calendars/school",
                body: [
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VEVENT", "UID:new@school",
                    "DTSTART;VALUE=DATE:\(day)", "SUMMARY:Sports day", "END:VEVENT", "END:VCALENDAR", "",
                ].joined(separator: "\r\n"))
            clock.set(clock.read().addingTimeInterval(901))
            let changed = try await events(demo)
            #expect(titles(changed, calendar: "school") == ["Sports day"])
        }
    }

    @Test func aFeedThatIsDownServesItsLastCopyWithAnIssue() async throws {
        // At noon of the local day: the 1,000 s below must not cross midnight (from 23:43 on
        // it did, and "today" had other events).
        let clock = HotPathTests.SteppingClock(
            LocalDate.today(in: DemoHarness.zone).date(hour: 12, minute: 0, in: DemoHarness.zone))
        try await withDemo(now: { clock.read() }) { demo in
            let before = titles(try await events(demo), calendar: "school")
            #expect(!before.isEmpty)
            _ = try await demo.call(.ics, .POST, "/_sim/faults", json: #"{"error_status":503}"#)
            clock.set(clock.read().addingTimeInterval(1000))
            let down = try await events(demo)
            #expect(titles(down, calendar: "school") == before)
            let issues = down["sections"]?["subscribed"]?["issues"]?.arrayValue ?? []
            #expect(
                issues.contains {
                    $0["scope"] == .string("school") && $0["message"]?.stringValue?.contains("copy") == true
                })
            #expect(down["sections"]?["subscribed"]?["status"] == .string("partial"))

            let calendars = try await demo.test { client in
                try await client.execute(uri: "/v1/calendars", method: .get, headers: Self.noCache).json
            }
            let list = calendars["calendars"]?.arrayValue ?? []
            #expect(list.map { $0["state"] } == Array(repeating: .string("stale"), count: 4))
        }
    }

    @Test func calendarsListTheirStateAndNoSecretLeaks() async throws {
        try await withDemo { demo in
            let (calendars, events) = try await demo.test { client in
                (
                    try await client.execute(uri: "/v1/calendars", method: .get).json,
                    try await client.execute(uri: "/v1/events?from=2026-11-01&to=2026-12-31", method: .get).json
                )
            }
            let list = try #require(calendars["calendars"]?.arrayValue)
            #expect(list.compactMap { $0["name"]?.stringValue } == ["school", "holidays", "club", "work"])
            #expect(list.compactMap { $0["auth"]?.stringValue } == ["none", "none", "basic", "bearer"])
            for calendar in list {
                #expect(calendar["state"] == .string("ok"), "\(calendar)")
                #expect((calendar["events"]?.numberValue ?? 0) > 0)
                #expect(calendar["source"]?.stringValue?.hasPrefix("http://127.0.0.1:") == true)
            }
            #expect(events["events"]?.arrayValue?.contains { $0["calendar"] == .string("club") } == true)

            let everything = [String(describing: calendars), String(describing: events), demo.logs.text]
            for secret in [ICSSimulator.demoSecretToken, ICSSimulator.demoPassword, ICSSimulator.demoToken] {
                for text in everything { #expect(!text.contains(secret)) }
            }
        }
    }
}
