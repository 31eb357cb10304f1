import CalendarReader
import Foundation
import Model
import Testing

/// Real-world feeds from other projects' test suites (see Tests/Fixtures/ics/SOURCES.md).
@Suite("ICS real-world fixtures")
struct ICSFixtureTests {
    typealias S = ICSTestSupport

    static let all = [
        "icalendar_america_new_york.ics", "icalendar_globally_unique_tzid.ics", "icalendar_non_ascii_tzid.ics",
        "icalendar_pacific_fiji.ics", "icalendar_rdate_period_khal.ics", "icalendar_rfc_6868.ics",
        "icalendar_small_bad_calendar.ics", "icalendar_timezoned.ics", "icalendar_transition_ambiguity.ics",
        "icaljs_recur_instances.ics", "school_2026.ics", "outlook_windows_zones.ics", "dst_crossings.ics",
    ]

    @Test(arguments: all)
    func everyFixtureReadsAndExpands(_ name: String) throws {
        let calendar = try ICSCalendar(bytes: try S.fixture(name), household: S.amsterdam)
        for event in calendar.events {
            let first = LocalDate(containing: event.start.instant(household: S.amsterdam), in: S.amsterdam)
            let expansion = calendar.expand(from: first.adding(days: -1), to: first.adding(days: 400))
            #expect(expansion.issues.isEmpty, "\(name): \(expansion.issues)")
            #expect(!expansion.occurrences.isEmpty || event.recurrenceID != nil, "\(name): \(event.uid) never happens")
        }
    }

    @Test func globallyUniqueTZIDs() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("icalendar_globally_unique_tzid.ics"), household: .gmt)
        #expect(calendar.issues.isEmpty)
        let zones = calendar.events.map { event -> String in
            if case .dateTime(_, let zone) = event.start { return zone.identifier }
            return ""
        }
        #expect(zones == ["Europe/Berlin", "America/New_York", "America/Argentina/Buenos_Aires"])
    }

    @Test func nonASCIIOutlookTZIDUsesItsVTIMEZONE() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("icalendar_non_ascii_tzid.ics"), household: S.amsterdam)
        let event = try #require(calendar.events.first)
        guard case .dateTime(_, .defined(let definition)) = event.start else {
            Issue.record("\"(UTC-03:00) Brasília\" must come from the feed's VTIMEZONE")
            return
        }
        #expect(definition.tzid == "(UTC-03:00) Brasília")
        #expect(S.iso(event.start.instant(household: .gmt), .gmt) == "2017-05-11T16:30:00+00:00")
        // No UID: the event is kept under a line name, with a note.
        #expect(event.uid.hasPrefix("line-"))
        #expect(calendar.issues.contains { $0.message.contains("without UID") })
    }

    @Test func ambiguousTimesInACustomZoneMeanTheFirst() throws {
        let calendar = try ICSCalendar(
            bytes: try S.fixture("icalendar_transition_ambiguity.ics"), household: S.amsterdam)
        let starts = Dictionary(
            uniqueKeysWithValues: calendar.events.map { ($0.uid, S.iso($0.start.instant(household: .gmt), .gmt)) })
        #expect(starts["0"] == "2024-03-02T20:00:00+00:00")  // +12
        #expect(starts["1"] == "2024-08-02T22:00:00+00:00")  // +10
        #expect(starts["2"] == "2024-05-04T22:00:01+00:00")  // after the change: +10
        #expect(starts["3"] == "2024-05-04T19:00:01+00:00")  // happens twice: the first (+12)
    }

    @Test func fijiWithSecondsInAnOffsetAndDuplicateDTSTART() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("icalendar_pacific_fiji.ics"), household: S.amsterdam)
        let event = try #require(calendar.events.first)
        #expect(S.iso(event.start.instant(household: .gmt), .gmt) == "2014-08-28T20:00:00+00:00")
    }

    @Test func caretEncodedParameterAndEventWithoutStart() throws {
        let bytes = try S.fixture("icalendar_rfc_6868.ics")
        let parsed = try ICSParser.parse(bytes)
        let attendee = try #require(parsed.calendars.first?.components.first?.property("ATTENDEE"))
        #expect(attendee.parameter("CN") == "George Herman \"Babe\" Ruth")
        let calendar = try ICSCalendar(bytes: bytes, household: .gmt)
        #expect(calendar.events.isEmpty)
        #expect(calendar.issues.map(\.line) == [3])
    }

    @Test func smallBadCalendarIsReportedNotFatal() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("icalendar_small_bad_calendar.ics"), household: .gmt)
        #expect(calendar.events.isEmpty)
        #expect(calendar.issues.contains { $0.message.contains("never closed") })
        #expect(calendar.issues.contains { $0.message.contains("no DTSTART") })
    }

    @Test func zimbraSeriesWithRDatesExDatesAndOverrides() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("icaljs_recur_instances.ics"), household: S.losAngeles)
        // The VTIMEZONE without TZID is reported; X-UNKNOWN and VALARM are ignored.
        #expect(calendar.issues.map(\.line) == [21])
        let expansion = calendar.expand(from: S.day("2012-10-01"), to: S.day("2012-12-01"))
        let starts = expansion.occurrences.map { S.iso($0.start, S.losAngeles) }
        #expect(
            starts == [
                // The first instance moved by an override; 1TU of November; the RDATE of 5 November
                // moved by an override (RECURRENCE-ID in UTC); two more RDATEs. EXDATE removes 4 December.
                "2012-10-02T15:00:00-07:00", "2012-11-06T10:00:00-08:00", "2012-11-06T20:00:00-08:00",
                "2012-11-10T10:00:00-08:00", "2012-11-30T10:00:00-08:00",
            ])
    }
}
