import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Testing

@testable import Gateway

/// A subscribed calendar that asks for millions of instances (the reproduced feed: 100 series of
/// FREQ=MINUTELY, 15 KB) while four answers expand it at once: `/healthz` is still answered at
/// once (the expansions run on threads of their own, not the ones serving requests), and every
/// answer comes back bounded.
@Suite("ICS hostile feed through the gateway")
struct ICSHostileFeedGatewayTests {
    static func minutely(_ count: Int) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//evil//EN"]
        for index in 0..<count {
            lines += [
                "BEGIN:VEVENT", "UID:m\(index)", "DTSTART:20200101T000000Z", "SUMMARY:tick", "RRULE:FREQ=MINUTELY",
                "END:VEVENT",
            ]
        }
        return (lines + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    @Test func healthzIsAnsweredWhileAHostileFeedIsExpanded() async throws {
        try await withDemo { demo in
            try await ICSGatewayTests().rawPost(demo, "/_sim/calendars/school", body: Self.minutely(100))
            let today = LocalDate.today(in: DemoHarness.zone)
            let fetchedBefore = demo.calls(.ics, "GET /calendars/school.ics")
            try await withThrowingTaskGroup(of: JSONValue.self) { group in
                // Four windows, four cache entries: four expansions of the feed at once.
                for days in [1, 2, 3, 4] {
                    group.addTask {
                        try await demo.test { client in
                            try await client.execute(
                                uri: "/v1/events?from=\(today)&to=\(today.adding(days: days))", method: .get,
                                headers: ICSGatewayTests.noCache
                            ).json
                        }
                    }
                }
                // Once the feed has been fetched, it is being read and expanded.
                while demo.calls(.ics, "GET /calendars/school.ics") == fetchedBefore { await Task.yield() }
                let asked = ContinuousClock.now
                let health = try await demo.test { client in
                    try await client.execute(uri: "/healthz", method: .get)
                }
                #expect(health.status == .ok)
                // Unbounded and on the shared threads, the expansions held /healthz for tens of seconds.
                #expect(ContinuousClock.now - asked < .seconds(10))
                // Each answer is bounded (one that waited past the route's deadline for a worker
                // has the section's timeout instead; `ICSUntrustedFeedTests` checks the issue).
                for try await answer in group {
                    let subscribed = answer["events"]?.arrayValue?.filter { $0["calendar"] == .string("school") } ?? []
                    #expect(subscribed.count <= 20_000)
                }
            }
        }
    }
}
