import ChildProcess
import Foundation
import Model
import Testing

@testable import Aggregation
@testable import Backends

/// The calendar feed read back by a real parser (Python's `icalendar`): wall times in the
/// household's zone west and east of UTC, around midnight and on both DST change days, read
/// the same through the zone's name and through the feed's own VTIMEZONE; text escaped and
/// folded; all-day entries as dates.
@Suite("Calendar feed writer")
struct CalendarFeedWriterTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("calendar_feed_reference.py")

    struct Read: Decodable {
        struct Row: Decodable {
            var uid: String
            var summary: String
            var dtstart: JSONValue
            var dtend: JSONValue
            var startByVTimeZone: Int?
            var endByVTimeZone: Int?
            var location: String?
            var description: String?

            enum CodingKeys: String, CodingKey {
                case uid, summary, dtstart, dtend, location, description
                case startByVTimeZone = "dtstart_vtimezone"
                case endByVTimeZone = "dtend_vtimezone"
            }
        }
        var events: [Row]
        var name: String
    }

    func read(_ text: String) async throws -> Read {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString).ics")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await ChildProcess.run(["python3", Self.script.path, file.path])
        try #require(run.status == 0, "python3 with icalendar is needed (make test installs it): \(run.error)")
        return try JSONDecoder().decode(Read.self, from: run.output)
    }

    /// Local wall times that are hard to get right: just before and after midnight, the first
    /// hour after the spring gap, the repeated hour in autumn, and a day-long entry.
    @Test(arguments: [
        ("America/New_York", "2026-03-08", "2026-11-01"),
        ("Pacific/Auckland", "2026-09-27", "2026-04-05"),
        ("Europe/Amsterdam", "2026-03-29", "2026-10-25"),
        ("Asia/Tokyo", "2026-03-29", "2026-10-25"),
    ])
    func wallTimesSurviveAParser(zoneName: String, spring: String, autumn: String) async throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        let springDay = try #require(LocalDate(spring))
        let autumnDay = try #require(LocalDate(autumn))
        func at(_ day: LocalDate, _ hour: Int, _ minute: Int) -> Date { day.date(hour: hour, minute: minute, in: zone) }
        let instants: [(String, Date, Date)] = [
            ("late", at(springDay.adding(days: -1), 23, 30), at(springDay, 0, 30)),
            ("after-gap", at(springDay, 3, 30), at(springDay, 4, 15)),
            ("overlap", at(autumnDay, 1, 30), at(autumnDay, 2, 30)),
            ("midnight", at(autumnDay.adding(days: 1), 0, 0), at(autumnDay.adding(days: 1), 0, 45)),
        ]
        var entries = instants.map { uid, start, end in
            CalendarFeedEntry(
                uid: uid, summary: "Zwemmen, daarna; koffie\nmet Ånna", time: .instants(start: start, end: end))
        }
        entries.append(
            CalendarFeedEntry(
                uid: "allday", summary: "Studiedag", time: .days(first: autumnDay, end: autumnDay.adding(days: 2)),
                location: String(repeating: "Lange straatnaam ", count: 8)))
        let window = CalendarFeedWindow(
            from: springDay.adding(days: -200), to: autumnDay.adding(days: 60), today: springDay, zone: zone)
        let text = CalendarFeedWriter(zone: zone, name: "daygate (test)").write(
            entries, window: window, stamp: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(text.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 }, "lines are folded")

        let read = try await read(text)
        #expect(read.name == "daygate (test)")
        for (uid, start, end) in instants {
            let row = try #require(read.events.first { $0.uid == uid }, "\(uid)")
            #expect(row.dtstart == .int(Int(start.timeIntervalSince1970)), "\(uid) in \(zoneName) by name")
            #expect(row.dtend == .int(Int(end.timeIntervalSince1970)), "\(uid) in \(zoneName) by name")
            #expect(row.startByVTimeZone == Int(start.timeIntervalSince1970), "\(uid) in \(zoneName) by VTIMEZONE")
            #expect(row.endByVTimeZone == Int(end.timeIntervalSince1970), "\(uid) in \(zoneName) by VTIMEZONE")
            #expect(row.summary == "Zwemmen, daarna; koffie\nmet Ånna")
        }
        let allDay = try #require(read.events.first { $0.uid == "allday" })
        #expect(allDay.dtstart == .string(autumn))
        #expect(allDay.dtend == .string(autumnDay.adding(days: 2).description))
        #expect(allDay.location == String(repeating: "Lange straatnaam ", count: 8))
    }

    @Test func theWindowIsCheckedAndDefaultsToAWeekBackAndSixtyDaysAhead() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Amsterdam"))
        let clock = RequestClock(now: Date(timeIntervalSince1970: 1_795_478_400), timeZone: zone)  // 2026-11-24 01:00
        let window = try CalendarFeedService.window(
            query: [("key", "a-feed-key-0123456789"), ("_", "1")], clock: clock)
        #expect(window.from.description == "2026-11-17")
        #expect(window.to.description == "2027-01-23")
        #expect(throws: ErrorDetail.self) {
            try CalendarFeedService.window(query: [("from", "2026-13-01")], clock: clock)
        }
        #expect(throws: ErrorDetail.self) {
            try CalendarFeedService.window(query: [("from", "2026-12-02"), ("to", "2026-12-01")], clock: clock)
        }
        #expect(throws: ErrorDetail.self) {
            try CalendarFeedService.window(query: [("from", "2026-01-01"), ("to", "2027-01-02")], clock: clock)
        }
        #expect(throws: ErrorDetail.self) { try CalendarFeedService.window(query: [("days", "3")], clock: clock) }
        // Found by schemathesis: a `key` that cannot be a feed key, or a parameter given twice,
        // was ignored (the last `from` won).
        #expect(throws: ErrorDetail.self) { try CalendarFeedService.window(query: [("key", "short")], clock: clock) }
        #expect(throws: ErrorDetail.self) {
            try CalendarFeedService.window(query: [("from", "2026-12-01"), ("from", "2026-12-02")], clock: clock)
        }
        #expect(throws: ErrorDetail.self) {
            try CalendarFeedService.window(
                query: [("key", "a-feed-key-0123456789"), ("key", "a-feed-key-0123456789")], clock: clock)
        }
        let year = try CalendarFeedService.window(query: [("from", "2026-01-01"), ("to", "2027-01-01")], clock: clock)
        #expect(year.days.count == 366, "366 days at most")
    }

    /// Plan items of one hour follow each other; breaks take their time but are not entries.
    @Test func tasksAndBlockedSlotsOfADayPlan() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let day = try #require(LocalDate("2026-11-01"))  // the autumn change
        let items = [
            PlanItem(
                id: "a", taskID: "t1", title: "Mail", hour: 9, position: 0, kind: .task, durationMinutes: 20,
                projectID: nil, contextID: nil),
            PlanItem(
                id: "b", taskID: nil, title: "Koffie", hour: 9, position: 1, kind: .break, durationMinutes: 10,
                projectID: nil, contextID: nil),
            PlanItem(
                id: "c", taskID: "t2", title: "Belasting", hour: 9, position: 2, kind: .task, durationMinutes: nil,
                projectID: nil, contextID: nil),
            PlanItem(
                id: "d", taskID: nil, title: "Tandarts", hour: 14, position: 0, kind: .blocked, durationMinutes: 60,
                projectID: nil, contextID: nil),
        ]
        let entries = TickedifyCalendarFeedPart.entries(items, on: day, zone: zone)
        #expect(
            entries.map(\.uid) == ["tickedify-plan-a@daygate", "tickedify-plan-c@daygate", "tickedify-plan-d@daygate"])
        let nine = day.date(hour: 9, minute: 0, in: zone)
        #expect(entries[0].time == .instants(start: nine, end: nine.addingTimeInterval(20 * 60)))
        #expect(
            entries[1].time == .instants(start: nine.addingTimeInterval(30 * 60), end: nine.addingTimeInterval(60 * 60))
        )
        #expect(entries[2].summary == "Geblokkeerd: Tandarts")
    }
}
