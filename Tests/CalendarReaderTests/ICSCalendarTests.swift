import CalendarReader
import Foundation
import Model
import Testing

@Suite("ICS calendar occurrences")
struct ICSCalendarTests {
    typealias S = ICSTestSupport

    func event(_ lines: String) -> String {
        S.feed("BEGIN:VEVENT\n" + lines + "\nEND:VEVENT")
    }

    @Test func allDayEndIsExclusiveAndMissingEndIsOneDay() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:three-days
            DTSTART;VALUE=DATE:20260410
            DTEND;VALUE=DATE:20260413
            END:VEVENT
            BEGIN:VEVENT
            UID:one-day
            DTSTART;VALUE=DATE:20260415
            END:VEVENT
            """)
        let days = try S.expand(text, from: "2026-04-09", to: "2026-04-17").days
        let map = Dictionary(uniqueKeysWithValues: days.map { ($0.date.description, $0.occurrences.map(\.uid)) })
        #expect(map["2026-04-09"] == [])
        #expect(map["2026-04-10"] == ["three-days"])
        #expect(map["2026-04-12"] == ["three-days"])
        #expect(map["2026-04-13"] == [])
        #expect(map["2026-04-15"] == ["one-day"])
        #expect(map["2026-04-16"] == [])
        let occurrence = try #require(days.first { $0.date == S.day("2026-04-10") }?.occurrences.first)
        #expect(occurrence.isAllDay)
        #expect(occurrence.endDate == S.day("2026-04-13"))
    }

    @Test func floatingTimesUseTheHouseholdZone() throws {
        let text = event("UID:f\nDTSTART:20260601T090000\nDTEND:20260601T100000")
        let amsterdam = try S.expand(text, S.amsterdam, from: "2026-06-01", to: "2026-06-02")
        let auckland = try S.expand(text, S.auckland, from: "2026-06-01", to: "2026-06-02")
        #expect(S.starts(amsterdam) == ["2026-06-01T09:00:00+02:00"])
        #expect(S.starts(auckland) == ["2026-06-01T09:00:00+12:00"])
    }

    @Test func utcAndTZIDTimes() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:utc
            DTSTART:20260601T070000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:ny
            DTSTART;TZID=America/New_York:20260601T070000
            DURATION:PT1H
            END:VEVENT
            """)
        let expansion = try S.expand(text, from: "2026-06-01", to: "2026-06-02")
        #expect(S.starts(expansion) == ["2026-06-01T09:00:00+02:00", "2026-06-01T13:00:00+02:00"])
        #expect(expansion.occurrences[0].start == expansion.occurrences[0].end)
        #expect(expansion.occurrences[1].end.timeIntervalSince(expansion.occurrences[1].start) == 3600)
    }

    @Test func textFieldsAreUnescaped() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("school_2026.ics"), household: S.amsterdam)
        let gym = try #require(calendar.events.first { $0.uid == "gym-groep5@regenboog.example" })
        #expect(gym.summary == "Gym (bring shoes, towel)")
        #expect(gym.location == "Sporthal Oost; zaal 2")
        #expect(gym.description == "Line one\nLine two\\with backslash")
        #expect(calendar.name == "Groep 5 – De Regenboog")
        #expect(calendar.declaredTimeZone == "Europe/Amsterdam")
    }

    @Test func exdatesOnSeveralLinesAndCommaListsWithTZID() throws {
        let expansion = try ICSCalendar(bytes: try S.fixture("school_2026.ics"), household: S.amsterdam)
            .expand(from: S.day("2026-02-09"), to: S.day("2026-02-23"))
        let gym = expansion.occurrences.filter { $0.uid == "gym-groep5@regenboog.example" }.map {
            S.iso($0.start, S.amsterdam)
        }
        #expect(gym == ["2026-02-09T10:15:00+01:00", "2026-02-12T10:15:00+01:00"])
        let april = try ICSCalendar(bytes: try S.fixture("school_2026.ics"), household: S.amsterdam)
            .expand(from: S.day("2026-04-27"), to: S.day("2026-05-01"))
        #expect(
            april.occurrences.filter { $0.uid.hasPrefix("gym") }.map { S.iso($0.start, S.amsterdam) } == [
                "2026-04-27T10:15:00+02:00"
            ])
    }

    @Test func recurrenceIDReplacesOneInstanceAndCancelledDropsOne() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("school_2026.ics"), household: S.amsterdam)
        let march = calendar.expand(from: S.day("2026-03-23"), to: S.day("2026-03-28"))
        let gym = march.occurrences.filter { $0.uid.hasPrefix("gym") }
        #expect(gym.map { S.iso($0.start, S.amsterdam) } == ["2026-03-23T10:15:00+01:00", "2026-03-27T09:00:00+01:00"])
        #expect(gym[1].summary == "Gym – outdoor sports day")
        #expect(gym[1].recurrenceID.map { S.iso($0, S.amsterdam) } == "2026-03-26T10:15:00+01:00")
        let october = calendar.expand(from: S.day("2026-10-26"), to: S.day("2026-10-30"))
        #expect(
            october.occurrences.filter { $0.uid.hasPrefix("gym") }.map { S.iso($0.start, S.amsterdam) } == [
                "2026-10-29T10:15:00+01:00"
            ])
    }

    @Test func cancelledEventIsDroppedEntirely() throws {
        let text = event("UID:c\nSTATUS:CANCELLED\nDTSTART:20260601T090000Z\nRRULE:FREQ=DAILY")
        #expect(try S.expand(text, from: "2026-06-01", to: "2026-06-05").occurrences.isEmpty)
    }

    @Test func thisAndFutureShiftsLaterInstances() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:s
            SUMMARY:Piano
            DTSTART;TZID=Europe/Amsterdam:20260601T160000
            DTEND;TZID=Europe/Amsterdam:20260601T163000
            RRULE:FREQ=WEEKLY;COUNT=5
            END:VEVENT
            BEGIN:VEVENT
            UID:s
            SUMMARY:Piano (new teacher)
            RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Amsterdam:20260615T160000
            DTSTART;TZID=Europe/Amsterdam:20260615T170000
            DTEND;TZID=Europe/Amsterdam:20260615T180000
            END:VEVENT
            """)
        let expansion = try S.expand(text, from: "2026-06-01", to: "2026-07-10")
        #expect(
            S.starts(expansion) == [
                "2026-06-01T16:00:00+02:00", "2026-06-08T16:00:00+02:00", "2026-06-15T17:00:00+02:00",
                "2026-06-22T17:00:00+02:00", "2026-06-29T17:00:00+02:00",
            ])
        #expect(
            expansion.occurrences.map(\.summary).suffix(3) == [
                "Piano (new teacher)", "Piano (new teacher)", "Piano (new teacher)",
            ])
        #expect(expansion.occurrences[4].end.timeIntervalSince(expansion.occurrences[4].start) == 3600)
    }

    @Test func rdatesAsDateTimeDateAndPeriod() throws {
        let text = S.feed(
            """
            BEGIN:VEVENT
            UID:timed
            DTSTART;TZID=Europe/Amsterdam:20260601T090000
            DTEND;TZID=Europe/Amsterdam:20260601T100000
            RDATE;TZID=Europe/Amsterdam:20260603T090000,20260604T110000
            RDATE;VALUE=PERIOD:20260605T120000Z/20260605T150000Z,20260606T080000Z/PT30M
            END:VEVENT
            BEGIN:VEVENT
            UID:days
            DTSTART;VALUE=DATE:20260601
            RDATE;VALUE=DATE:20260610,20260612
            END:VEVENT
            """)
        let expansion = try S.expand(text, from: "2026-06-01", to: "2026-06-15")
        let timed = expansion.occurrences.filter { $0.uid == "timed" }
        #expect(
            timed.map { S.iso($0.start, S.amsterdam) } == [
                "2026-06-01T09:00:00+02:00", "2026-06-03T09:00:00+02:00", "2026-06-04T11:00:00+02:00",
                "2026-06-05T14:00:00+02:00", "2026-06-06T10:00:00+02:00",
            ])
        #expect(timed.map { $0.end.timeIntervalSince($0.start) } == [3600, 3600, 3600, 10_800, 1800])
        #expect(
            expansion.occurrences.filter { $0.uid == "days" }.compactMap(\.startDate).map(\.description) == [
                "2026-06-01", "2026-06-10", "2026-06-12",
            ])
    }

    @Test func untilAsDateAndAsUTC() throws {
        let byDate = event("UID:a\nDTSTART;TZID=Europe/Amsterdam:20260601T090000\nRRULE:FREQ=DAILY;UNTIL=20260603")
        #expect(try S.expand(byDate, from: "2026-06-01", to: "2026-06-10").occurrences.count == 3)
        let byTime = event(
            "UID:b\nDTSTART;TZID=Europe/Amsterdam:20260601T090000\nRRULE:FREQ=DAILY;UNTIL=20260603T070000Z")
        #expect(try S.expand(byTime, from: "2026-06-01", to: "2026-06-10").occurrences.count == 3)
        let before = event(
            "UID:c\nDTSTART;TZID=Europe/Amsterdam:20260601T090000\nRRULE:FREQ=DAILY;UNTIL=20260603T065959Z")
        #expect(try S.expand(before, from: "2026-06-01", to: "2026-06-10").occurrences.count == 2)
    }

    @Test func eventCrossingMidnightBelongsToBothDays() throws {
        let text = event(
            "UID:late\nDTSTART;TZID=Europe/Amsterdam:20260612T230000\nDTEND;TZID=Europe/Amsterdam:20260613T013000")
        let days = try S.expand(text, from: "2026-06-11", to: "2026-06-15").days
        #expect(days.map { $0.occurrences.count } == [0, 1, 1, 0])
    }

    @Test func eventEndingAtMidnightDoesNotTouchTheNextDay() throws {
        let text = event(
            "UID:e\nDTSTART;TZID=Europe/Amsterdam:20260612T220000\nDTEND;TZID=Europe/Amsterdam:20260613T000000")
        #expect(try S.expand(text, from: "2026-06-12", to: "2026-06-14").days.map { $0.occurrences.count } == [1, 0])
    }

    @Test func dstChangeKeepsWallClockAndDayMembership() throws {
        let text = event(
            "UID:d\nDTSTART;TZID=Europe/Amsterdam:20260327T090000\nDURATION:PT1H\nRRULE:FREQ=DAILY;COUNT=4")
        let expansion = try S.expand(text, from: "2026-03-27", to: "2026-03-31")
        #expect(
            S.starts(expansion) == [
                "2026-03-27T09:00:00+01:00", "2026-03-28T09:00:00+01:00", "2026-03-29T09:00:00+02:00",
                "2026-03-30T09:00:00+02:00",
            ])
        #expect(expansion.days.map { $0.occurrences.count } == [1, 1, 1, 1])
        // The same event seen from Los Angeles (still on standard time until 8 March, DST after).
        let seenFromLA = try S.expand(text, S.losAngeles, from: "2026-03-27", to: "2026-03-31")
        #expect(S.starts(seenFromLA).first == "2026-03-27T01:00:00-07:00")
    }

    @Test func nightShiftAcrossTheSpringChange() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("outlook_windows_zones.ics"), household: S.amsterdam)
        let expansion = calendar.expand(from: S.day("2026-03-28"), to: S.day("2026-03-30"))
        let shift = try #require(expansion.occurrences.first { $0.uid == "night-shift@outlook.example" })
        #expect(shift.end.timeIntervalSince(shift.start) == 7 * 3600)  // 22:00 CET → 06:00 CEST
        #expect(expansion.days.map { $0.occurrences.contains { $0.uid == shift.uid } } == [true, true])
    }

    @Test func outlookWindowsZonesAndOverride() throws {
        let calendar = try ICSCalendar(bytes: try S.fixture("outlook_windows_zones.ics"), household: S.amsterdam)
        #expect(calendar.issues.isEmpty, "\(calendar.issues)")
        let sync = calendar.expand(from: S.day("2026-10-19"), to: S.day("2026-11-03")).occurrences.filter {
            $0.summary?.hasPrefix("Team sync") == true
        }
        #expect(
            sync.map { S.iso($0.start, S.amsterdam) } == [
                "2026-10-19T09:30:00+02:00", "2026-10-26T11:00:00+01:00", "2026-11-02T09:30:00+01:00",
            ])
        let flight = try #require(
            calendar.expand(from: S.day("2026-10-31"), to: S.day("2026-11-03")).occurrences.first {
                $0.uid.hasPrefix("flight")
            })
        #expect(S.iso(flight.start, S.losAngeles) == "2026-10-31T17:00:00-07:00")
        #expect(S.iso(flight.end, S.losAngeles) == "2026-11-01T09:00:00-08:00")
    }

    @Test func expansionCapIsReported() throws {
        let text = event("UID:busy\nDTSTART:20260601T000000Z\nRRULE:FREQ=MINUTELY")
        let calendar = try ICSCalendar(text: text, household: S.amsterdam)
        let expansion = calendar.expand(
            from: S.day("2026-06-01"), to: S.day("2026-06-30"), limits: ICSLimits(maximumSeriesInstances: 500))
        #expect(expansion.occurrences.count == 500)
        #expect(expansion.issues.map(\.uid) == ["busy"])
    }

    @Test func orphanOverrideIsStillShown() throws {
        let text = event("UID:o\nRECURRENCE-ID:20260601T090000Z\nDTSTART:20260601T100000Z\nSUMMARY:moved")
        #expect(try S.expand(text, from: "2026-06-01", to: "2026-06-02").occurrences.map(\.summary) == ["moved"])
    }
}
