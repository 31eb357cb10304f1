import CalendarReader
import Foundation
import Testing

@Suite("ICS parser and feed errors")
struct ICSParserTests {
    @Test func nestsComponentsAndIgnoresTodosAlarmsAndUnknown() throws {
        let text = ICSTestSupport.feed(
            """
            BEGIN:VTODO
            UID:todo
            DTSTART:20260101T090000Z
            END:VTODO
            BEGIN:X-VENDOR-THING
            BEGIN:VEVENT
            UID:hidden
            DTSTART:20260101T090000Z
            END:VEVENT
            END:X-VENDOR-THING
            BEGIN:VEVENT
            UID:real
            DTSTART:20260101T090000Z
            BEGIN:VALARM
            TRIGGER:-PT5M
            END:VALARM
            END:VEVENT
            """)
        let parsed = try ICSParser.parse(Array(text.utf8))
        #expect(parsed.calendars.count == 1)
        #expect(parsed.calendars[0].components.map(\.name) == ["VTODO", "X-VENDOR-THING", "VEVENT"])
        #expect(parsed.calendars[0].components[2].components.map(\.name) == ["VALARM"])
        let calendar = try ICSCalendar(text: text, household: ICSTestSupport.amsterdam)
        #expect(calendar.events.map(\.uid) == ["real"])
    }

    @Test func notICalendarIsAClearError() {
        #expect(
            throws: ICSReadError.notICalendar(
                "expected BEGIN:VCALENDAR on line 1, found \"<!DOCTYPE html>\" (looks like HTML or XML)")
        ) {
            _ = try ICSCalendar(text: "<!DOCTYPE html>\n<html></html>", household: .gmt)
        }
        #expect(throws: ICSReadError.notICalendar("the feed is empty")) {
            _ = try ICSCalendar(text: "\r\n\r\n", household: .gmt)
        }
        do {
            _ = try ICSCalendar(text: #"{"error": "login"}"#, household: .gmt)
            Issue.record("JSON must be refused")
        } catch {
            #expect(error.description.contains("looks like JSON"))
        }
    }

    @Test func sizeCapIsEnforced() {
        let text = ICSTestSupport.feed("X-PAD:" + String(repeating: "x", count: 2_000))
        #expect(throws: ICSReadError.tooLarge(bytes: text.utf8.count, limit: 1_000)) {
            _ = try ICSCalendar(text: text, household: .gmt, limits: ICSLimits(maximumBytes: 1_000))
        }
        #expect((try? ICSCalendar(text: text, household: .gmt)) != nil)
    }

    /// An event that means nothing (no start, a date that is not one) is skipped; a line that
    /// cannot be read is dropped and an RRULE that cannot be read ignored, the event kept — as
    /// calendar apps show them. Each says so, with its line.
    @Test func badEventIsSkippedWithLineAndUID() throws {
        let text = ICSTestSupport.feed(
            """
            BEGIN:VEVENT
            UID:good-1
            DTSTART:20260105T090000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:bad-date
            DTSTART:20260230T090000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:bad-line
            this line has no colon
            DTSTART:20260105T090000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:bad-rule
            DTSTART:20260105T090000Z
            RRULE:FREQ=SOMETIMES
            END:VEVENT
            BEGIN:VEVENT
            UID:no-start
            SUMMARY:nothing
            END:VEVENT
            BEGIN:VEVENT
            UID:good-2
            DTSTART;VALUE=DATE:20260105
            END:VEVENT
            """)
        let calendar = try ICSCalendar(text: text, household: ICSTestSupport.amsterdam)
        #expect(calendar.events.map(\.uid) == ["good-1", "bad-line", "bad-rule", "good-2"])
        #expect(calendar.events[2].rules.isEmpty)
        let issues = calendar.issues
        #expect(issues.map(\.uid) == [nil, "bad-date", "bad-rule", "no-start"])
        #expect(issues.map(\.line) == [14, 10, 20, 22])
        #expect(issues[0].description.hasPrefix("line 14: malformed content line"))
        #expect(issues[1].description.hasPrefix("line 10 (UID bad-date): event skipped"))
        #expect(issues[2].message.contains("the event is shown once"))
    }

    @Test func extremeValuesAreRefusedNotTrapped() throws {
        let text = ICSTestSupport.feed(
            """
            BEGIN:VEVENT
            UID:long
            DTSTART;VALUE=DATE:20260101
            DURATION:P99999999W
            END:VEVENT
            BEGIN:VEVENT
            UID:year-zero
            DTSTART:00000101T000000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:far
            DTSTART;VALUE=DATE:99991230
            RRULE:FREQ=DAILY
            END:VEVENT
            """)
        let calendar = try ICSCalendar(text: text, household: ICSTestSupport.amsterdam)
        #expect(calendar.issues.compactMap(\.uid) == ["long", "year-zero"])
        let late = calendar.expand(from: ICSTestSupport.day("9999-12-29"), to: ICSTestSupport.day("9999-12-31"))
        #expect(late.occurrences.count == 1)
    }

    @Test func truncatedFeedKeepsCompleteEvents() throws {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20260105T090000Z\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:cut\r\nDTSTART:2026"
        let calendar = try ICSCalendar(text: text, household: .gmt)
        #expect(calendar.events.map(\.uid) == ["a"])
        #expect(calendar.issues.contains { $0.uid == "cut" && $0.line == 6 })
    }

    @Test func fuzzedInputNeverCrashes() throws {
        let base = Array(try ICSTestSupport.fixture("school_2026.ics"))
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            var bytes = base
            for _ in 0..<(1 + round % 20) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch round % 3 {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: index)
                default: bytes.insert([0x0A, 0x20, 0x3A, 0x3B, 0x22][round % 5], at: index)
                }
            }
            if let calendar = try? ICSCalendar(bytes: bytes, household: ICSTestSupport.amsterdam) {
                _ = calendar.expand(from: ICSTestSupport.day("2026-01-01"), to: ICSTestSupport.day("2026-03-01")).days
            }
        }
    }
}
