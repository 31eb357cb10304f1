import CalendarReader
import Foundation
import Model
import Testing

/// What real calendars hold and calendar apps show: revisions of one event, moved days of
/// all-day series written as date-times, several RRULEs, overrides a later version no longer
/// has, and feeds broken in ways the apps still show (each with an issue on the calendar).
@Suite("ICS real-world feeds")
struct ICSRealWorldFeedTests {
    typealias S = ICSTestSupport

    static func issues(_ text: String, _ zone: TimeZone = S.amsterdam) throws -> [String] {
        try ICSCalendar(text: text, household: zone).issues.map(\.message)
    }

    // MARK: Bugs

    @Test func revisionsOfOneEventAreOneEventTheLatestWins() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:rev
            SEQUENCE:0
            DTSTART:20260105T100000Z
            RRULE:FREQ=WEEKLY;COUNT=3
            EXDATE:20260112T100000Z
            SUMMARY:old
            END:VEVENT
            BEGIN:VEVENT
            UID:rev
            SEQUENCE:1
            DTSTART:20260106T100000Z
            RRULE:FREQ=WEEKLY;COUNT=2
            SUMMARY:new
            END:VEVENT
            BEGIN:VEVENT
            UID:tie
            SEQUENCE:2
            DTSTAMP:20260101T000000Z
            DTSTART:20260107T100000Z
            SUMMARY:stamped first
            END:VEVENT
            BEGIN:VEVENT
            UID:tie
            SEQUENCE:2
            DTSTAMP:20260102T000000Z
            DTSTART:20260108T100000Z
            SUMMARY:stamped later
            END:VEVENT
            """)
        let expansion = try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")
        #expect(
            expansion.occurrences.map { "\(S.referenceStart($0, S.amsterdam)) \($0.summary ?? "")" } == [
                "2026-01-06T11:00:00+01:00 new", "2026-01-08T11:00:00+01:00 stamped later",
                "2026-01-13T11:00:00+01:00 new",
            ])
    }

    @Test(arguments: ["America/New_York", "Europe/Amsterdam", "Pacific/Auckland"])
    func aMovedDayOfAnAllDaySeriesIsTheDateAsWrittenInEveryZone(_ zone: String) throws {
        let household = try #require(TimeZone(identifier: zone))
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:holiday
            DTSTART;VALUE=DATE:20200414
            DTEND;VALUE=DATE:20200415
            RRULE:FREQ=DAILY;COUNT=4
            EXDATE;TZID=Europe/Berlin:20200417T000000
            SUMMARY:camp
            END:VEVENT
            BEGIN:VEVENT
            UID:holiday
            RECURRENCE-ID;TZID=Europe/Berlin:20200416T000000
            DTSTART;VALUE=DATE:20200420
            DTEND;VALUE=DATE:20200421
            SUMMARY:camp (moved)
            END:VEVENT
            BEGIN:VEVENT
            UID:holiday
            RECURRENCE-ID:20200415T000000Z
            DTSTART;VALUE=DATE:20200422
            DTEND;VALUE=DATE:20200423
            SUMMARY:camp (moved too)
            END:VEVENT
            """)
        let expansion = try S.expand(text, household, from: "2020-04-10", to: "2020-04-30")
        #expect(
            expansion.occurrences.map { "\($0.startDate?.description ?? "") \($0.summary ?? "")" } == [
                "2020-04-14 camp", "2020-04-20 camp (moved)", "2020-04-22 camp (moved too)",
            ])
    }

    @Test func aSecondRRuleAddsItsInstances() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:two
            DTSTART:20260105T100000Z
            RRULE:FREQ=WEEKLY;COUNT=2
            RRULE:FREQ=DAILY;COUNT=3
            SUMMARY:x
            END:VEVENT
            """)
        let expansion = try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")
        #expect(
            S.starts(expansion) == [
                "2026-01-05T11:00:00+01:00", "2026-01-06T11:00:00+01:00", "2026-01-07T11:00:00+01:00",
                "2026-01-12T11:00:00+01:00",
            ])
    }

    /// RFC 5545 §3.8.4.4: a RECURRENCE-ID names an instance of the series. A later version of
    /// the series (higher SEQUENCE) that no longer has that instance leaves the old override
    /// without one; python's recurring-ical-events still shows it (docs/backends/ics.md).
    @Test func anOverrideOfAnInstanceTheSeriesNoLongerHasIsNotResurrected() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:short
            SEQUENCE:2
            DTSTART:20260105T100000Z
            RRULE:FREQ=DAILY;COUNT=2
            SUMMARY:series
            END:VEVENT
            BEGIN:VEVENT
            UID:short
            SEQUENCE:1
            RECURRENCE-ID:20260108T100000Z
            DTSTART:20260108T120000Z
            SUMMARY:gone
            END:VEVENT
            BEGIN:VEVENT
            UID:short
            SEQUENCE:1
            RECURRENCE-ID:20260106T100000Z
            DTSTART:20260106T150000Z
            SUMMARY:still moved
            END:VEVENT
            """)
        let expansion = try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")
        #expect(
            expansion.occurrences.map { "\(S.referenceStart($0, S.amsterdam)) \($0.summary ?? "")" } == [
                "2026-01-05T11:00:00+01:00 series", "2026-01-06T16:00:00+01:00 still moved",
            ])
    }

    @Test func anUnclosedComponentDoesNotSwallowTheEventsAfterIt() throws {
        let text = S.feed(
            """
            BEGIN:VTODO
            UID:t
            END:VTOOD
            BEGIN:VEVENT
            UID:after
            DTSTART:20260105T100000Z
            SUMMARY:after
            END:VEVENT
            """)
        let expansion = try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")
        #expect(expansion.occurrences.map(\.uid) == ["after"])
        #expect(try Self.issues(text).contains { $0.contains("BEGIN:VTODO is never closed") })
    }

    @Test func anUnknownRulePartIsReported() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:untl
            DTSTART:20260105T100000Z
            RRULE:FREQ=WEEKLY;UNTL=20260115T100000Z
            SUMMARY:x
            END:VEVENT
            """)
        #expect(try Self.issues(text).contains { $0.contains("UNTL") })
    }

    // MARK: Broken feeds, shown as calendar apps show them

    @Test func anEmptyRRuleShowsTheEventOnce() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:e
            DTSTART:20260105T100000Z
            RRULE:
            SUMMARY:x
            END:VEVENT
            """)
        #expect(
            S.starts(try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")) == [
                "2026-01-05T11:00:00+01:00"
            ])
        #expect(try Self.issues(text).contains { $0.contains("RRULE is empty") })
    }

    @Test func anEndBeforeItsStartIsSwapped() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:d
            DTSTART:20260105T100000Z
            DTEND:20260105T090000Z
            SUMMARY:x
            END:VEVENT
            """)
        let expansion = try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")
        let occurrence = try #require(expansion.occurrences.first)
        #expect(S.iso(occurrence.start, S.amsterdam) == "2026-01-05T10:00:00+01:00")
        #expect(S.iso(occurrence.end, S.amsterdam) == "2026-01-05T11:00:00+01:00")
        #expect(try Self.issues(text).contains { $0.contains("DTEND is before DTSTART") })
    }

    @Test func aFoldedLineWithoutItsSpaceIsDroppedTheEventKept() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:f
            DTSTART:20260105T100000Z
            DESCRIPTION:line one
            continued without its space
            SUMMARY:kept
            END:VEVENT
            """)
        let expansion = try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")
        #expect(expansion.occurrences.map(\.summary) == ["kept"])
        #expect(expansion.occurrences.first?.description == "line one")
        #expect(try Self.issues(text).contains { $0.contains("malformed content line") })
    }

    @Test func aNegativeCountBesideUntilFollowsUntil() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:c
            DTSTART:20260105T100000Z
            RRULE:FREQ=DAILY;COUNT=-1;UNTIL=20260107T100000Z
            SUMMARY:x
            END:VEVENT
            """)
        #expect(S.starts(try S.expand(text, S.amsterdam, from: "2026-01-01", to: "2026-02-01")).count == 3)
        #expect(try Self.issues(text).contains { $0.contains("COUNT") })
    }

    /// Decided (docs/backends/ics.md): floating times are read in the zone `X-WR-TIMEZONE`
    /// names, as Google Calendar, Apple Calendar and Outlook read them; without one, in the
    /// household's zone.
    @Test func floatingTimesAreReadInTheFeedsDeclaredZone() throws {
        let body = """
            BEGIN:VEVENT
            UID:float
            DTSTART:20260105T100000
            SUMMARY:x
            END:VEVENT
            """
        let declared = S.feed("X-WR-TIMEZONE:Europe/Amsterdam\n" + body)
        #expect(
            S.starts(try S.expand(declared, S.losAngeles, from: "2026-01-04", to: "2026-01-06")) == [
                "2026-01-05T01:00:00-08:00"
            ])
        #expect(
            S.starts(try S.expand(S.feed(body), S.losAngeles, from: "2026-01-04", to: "2026-01-06")) == [
                "2026-01-05T10:00:00-08:00"
            ])
        // A declared zone that is not a zone: the household's.
        let unknown = S.feed("X-WR-TIMEZONE:Mars/Olympus\n" + body)
        #expect(
            S.starts(try S.expand(unknown, S.losAngeles, from: "2026-01-04", to: "2026-01-06")) == [
                "2026-01-05T10:00:00-08:00"
            ])
    }
}
