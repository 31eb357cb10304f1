import CalendarReader
import Foundation
import Model
import Synchronization
import Testing

@testable import Backends

/// A subscribed feed is untrusted input: `ics.events` and `ics.calendars` answer a hostile one
/// bounded, with an issue `feed_limit` naming the calendar, and the work runs on `ICSWorkers`,
/// at most `width` at once, stopped by its caller's cancellation. Each test has workers of its
/// own, and its feeds a timeout of 10 minutes: what is checked is the limits, never a wall
/// clock. With the standard 10 s (a wait of 17 s for the feed) the calendar answered
/// `upstream_timeout` instead of the limit it checks, twice in `make test` (CI stop 45, and
/// again with workers of its own): every suite runs at once, and synchronous expansions of
/// other suites held both of Swift's cooperative threads for that long.
@Suite("ICS untrusted feeds")
struct ICSUntrustedFeedTests {
    typealias B = ICSBackendTests
    static let patient = ConfigDuration.seconds(600)

    /// `count` series of FREQ=MINUTELY: the feed that stalled the gateway (100 series, 15 KB).
    static func minutely(_ count: Int) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//evil//EN"]
        for index in 0..<count {
            lines += [
                "BEGIN:VEVENT", "UID:m\(index)", "DTSTART:20260101T000000Z", "SUMMARY:tick", "RRULE:FREQ=MINUTELY",
                "END:VEVENT",
            ]
        }
        return (lines + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    /// An answer holds at most `maximumFeedInstancesPerDay` of one calendar per day it covers:
    /// the hostile feed's 144,000 occurrences a day come to 500 a day, cut with an issue, and the
    /// school's events are all there beside them.
    @Test func aHostileFeedIsCutToItsShareAndTheOtherCalendarIsWhole() async throws {
        let evil = try B.file(Self.minutely(100))
        let school = try B.file(B.feed)
        defer {
            try? FileManager.default.removeItem(atPath: evil)
            try? FileManager.default.removeItem(atPath: school)
        }
        let operation = ICSEventsOperation(feeds: ICSFeedStore(), workers: ICSWorkers(width: 2))
        let context = B.context(
            [ICSSettings.Calendar(name: "evil", url: evil), ICSSettings.Calendar(name: "school", url: school)],
            timeout: Self.patient)
        // Bounded by its limits (checked below), not by a wall clock: beside the other parallel
        // suites on two cores, waiting for a thread alone took minutes.
        let output = try await operation.fetch(
            ["from": .date(B.day("2026-11-23")), "to": .date(B.day("2026-11-29"))], context: context)
        let events = try B.events(output)
        #expect(events.filter { $0.calendar == "evil" }.count == 7 * ICSEventsOperation.maximumFeedInstancesPerDay)
        #expect(events.count <= 7 * ICSEventsOperation.maximumInstancesPerDay)
        #expect(events.filter { $0.calendar == "school" }.map(\.title) == ["Gym, hall 2", "Camp night"])
        let cut = output.issues.filter { $0.code == "feed_limit" }
        #expect(cut.count >= 1)
        #expect(cut.allSatisfy { $0.scope == "evil" && $0.message.hasPrefix("evil: ") })
    }

    @Test func anAnswerHoldsAtMostItsInstancesAcrossCalendars() async throws {
        let evil = try B.file(Self.minutely(100))
        defer { try? FileManager.default.removeItem(atPath: evil) }
        let names = ["a", "b", "c", "d"]
        let operation = ICSEventsOperation(feeds: ICSFeedStore(), workers: ICSWorkers(width: 2))
        let context = B.context(names.map { ICSSettings.Calendar(name: $0, url: evil) }, timeout: Self.patient)
        let output = try await operation.fetch(
            ["from": .date(B.day("2026-11-23")), "to": .date(B.day("2026-11-29"))], context: context)
        #expect(try B.events(output).count <= ICSEventsOperation.maximumAnswerInstances)
        // The last calendar found the answer full and says so.
        #expect(
            output.issues.contains { $0.scope == "d" && $0.code == "feed_limit" && $0.message.contains("left out") })
    }

    @Test func aFeedWhoseReadingWasCutSaysSoInCalendars() async throws {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0"]
        // Nested deeper than the limit (an unknown component may nest; an event may not).
        lines += Array(repeating: "BEGIN:X-NEST", count: 20)
        lines += ["END:VCALENDAR", ""]
        let path = try B.file(lines.joined(separator: "\r\n"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let operation = ICSCalendarsOperation(feeds: ICSFeedStore(), workers: ICSWorkers(width: 2))
        let output = try await operation.fetch(
            [:], context: B.context([ICSSettings.Calendar(name: "deep", url: path)], timeout: Self.patient))
        #expect(
            output.issues.contains { $0.scope == "deep" && $0.code == "feed_limit" },
            "\(String(decoding: output.body, as: UTF8.self))")
    }

    /// Work runs on the workers' threads, never more than `width` at once; the rest wait.
    @Test func workersRunAtMostTheirWidthAtOnce() async throws {
        let workers = ICSWorkers(width: 2)
        let running = Shared((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await workers.run(maximumSteps: 200_000, maximumDuration: .seconds(60)) { budget in
                        running.value.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        // Busy until the budget says stop: 200,000 steps.
                        while budget.spend() {}
                        running.value.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(running.value.withLock { $0.most } <= 2)
    }

    /// A caller cancelled while its work runs gets CancellationError, and the work stops.
    @Test func cancellingTheCallerStopsTheWork() async throws {
        let workers = ICSWorkers(width: 1)
        let started = Shared(false)
        let task = Task {
            try await workers.run(maximumDuration: .seconds(600)) { budget in
                started.value.withLock { $0 = true }
                while budget.spend() {}
                return budget.stop
            }
        }
        while !started.value.withLock({ $0 }) { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The worker is free again: the next job runs.
        let next = try await workers.run(maximumDuration: .seconds(60)) { _ in 42 }
        #expect(next == 42)
    }
}

/// A lock shared by the tasks of a test.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }
}
