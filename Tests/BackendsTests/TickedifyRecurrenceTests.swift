import Foundation
import Model
import Testing

@testable import Backends

/// Tickedify's recurring tasks: the next date the web app computes for each `herhalingType`.
///
/// The expected dates in `webApp` and `webAppEvents` were produced by running the web app's own
/// functions (`calculateNextRecurringDate` and `calculateEventBasedDate` from public/app.js of
/// nrgiser71/tickedify at 83baa84) in node with TZ=UTC and a fixed clock for "today"; neither that
/// code nor the script is part of this repository. In a browser in another zone the web app's
/// answers move by a day at times (it parses the date as UTC midnight but steps with local-time
/// setters); node gave, for rows of the table below:
///
/// | pattern              | date       | UTC (the rule) | Europe/Amsterdam | America/New_York |
/// |----------------------|------------|----------------|------------------|------------------|
/// | dagelijks            | 2026-03-29 | 2026-03-30     | 2026-03-29       | 2026-03-30       |
/// | wekelijks            | 2026-03-25 | 2026-04-01     | 2026-03-31       | 2026-04-01       |
/// | werkdagen            | 2026-03-27 | 2026-03-30     | 2026-03-29       | 2026-03-28       |
/// | maandag              | 2026-03-02 | 2026-03-09     | 2026-03-09       | 2026-03-03       |
/// | monthly-day-31-1     | 2026-01-15 | 2026-02-28     | 2026-02-28       | 2026-03-01       |
/// | laatste-dag-jaar     | 2026-12-31 | 2027-12-31     | 2027-12-31       | 2028-01-01       |
///
/// daygate computes the rule, the same in every zone (see `TickedifyRecurrence`).
@Suite("Tickedify recurrence")
struct TickedifyRecurrenceTests {
    static func day(_ text: String) -> LocalDate { LocalDate(text)! }

    /// (pattern, the task's date, today, the web app's answer). A today of 2000-01-01 leaves the
    /// catching-up patterns at their first step; the last rows catch up.
    static let webApp: [(String, String, String, String)] = [
        ("dagelijks", "2026-03-10", "2000-01-01", "2026-03-11"),
        ("dagelijks", "2026-12-31", "2000-01-01", "2027-01-01"),
        ("dagelijks", "2024-02-28", "2000-01-01", "2024-02-29"),
        ("dagelijks", "2026-03-28", "2000-01-01", "2026-03-29"),
        ("dagelijks", "2026-03-29", "2000-01-01", "2026-03-30"),
        ("dagelijks", "2026-10-25", "2000-01-01", "2026-10-26"),
        ("dagelijks", "2026-03-08", "2000-01-01", "2026-03-09"),
        ("dagelijks", "2026-11-01", "2000-01-01", "2026-11-02"),
        ("om-de-dag", "2026-12-31", "2000-01-01", "2027-01-02"),
        ("wekelijks", "2026-03-25", "2000-01-01", "2026-04-01"),
        ("wekelijks", "2026-02-26", "2000-01-01", "2026-03-05"),
        ("wekelijks", "2026-10-25", "2000-01-01", "2026-11-01"),
        ("2-weken", "2026-12-24", "2000-01-01", "2027-01-07"),
        ("3-weken", "2026-03-20", "2000-01-01", "2026-04-10"),
        ("werkdagen", "2026-03-06", "2000-01-01", "2026-03-09"),
        ("werkdagen", "2026-03-07", "2000-01-01", "2026-03-09"),
        ("werkdagen", "2026-03-08", "2000-01-01", "2026-03-09"),
        ("werkdagen", "2026-03-26", "2000-01-01", "2026-03-27"),
        ("werkdagen", "2026-03-27", "2000-01-01", "2026-03-30"),
        ("werkdagen", "2026-10-23", "2000-01-01", "2026-10-26"),
        ("werkdagen", "2026-10-30", "2000-01-01", "2026-11-02"),
        ("werkdagen", "2026-12-31", "2000-01-01", "2027-01-01"),
        ("maandelijks", "2026-01-31", "2000-01-01", "2026-03-03"),
        ("maandelijks", "2024-01-31", "2000-01-01", "2024-03-02"),
        ("maandelijks", "2026-03-31", "2000-01-01", "2026-05-01"),
        ("maandelijks", "2026-01-15", "2000-01-01", "2026-02-15"),
        ("maandelijks", "2026-12-31", "2000-01-01", "2027-01-31"),
        ("maandelijks", "2024-02-29", "2000-01-01", "2024-03-29"),
        ("maandelijks", "2026-08-31", "2000-01-01", "2026-10-01"),
        ("maandelijks", "2026-03-29", "2000-01-01", "2026-04-29"),
        ("maandelijks", "2026-10-25", "2000-01-01", "2026-11-25"),
        ("2-maanden", "2026-12-31", "2000-01-01", "2027-03-03"),
        ("3-maanden", "2026-11-30", "2000-01-01", "2027-03-02"),
        ("6-maanden", "2026-08-31", "2000-01-01", "2027-03-03"),
        ("6-maanden", "2027-08-31", "2000-01-01", "2028-03-02"),
        ("jaarlijks", "2024-02-29", "2000-01-01", "2025-03-01"),
        ("jaarlijks", "2027-02-28", "2000-01-01", "2028-02-28"),
        ("jaarlijks", "2026-12-31", "2000-01-01", "2027-12-31"),
        ("jaarlijks", "2023-02-28", "2000-01-01", "2024-02-28"),
        ("jaarlijks", "2026-03-29", "2000-01-01", "2027-03-29"),
        ("maandag", "2026-03-02", "2000-01-01", "2026-03-09"),
        ("zondag", "2026-03-28", "2000-01-01", "2026-03-29"),
        ("zondag", "2026-03-29", "2000-01-01", "2026-04-05"),
        ("zaterdag", "2026-10-24", "2000-01-01", "2026-10-31"),
        ("woensdag", "2026-12-31", "2000-01-01", "2027-01-06"),
        ("zondag", "2026-10-31", "2000-01-01", "2026-11-01"),
        ("maandag", "2026-03-08", "2000-01-01", "2026-03-09"),
        ("zondag", "2026-10-31", "2000-01-01", "2026-11-01"),
        ("daily-3", "2026-12-30", "2000-01-01", "2027-01-02"),
        ("daily-2", "2024-02-28", "2000-01-01", "2024-03-01"),
        ("daily-30", "2026-03-08", "2000-01-01", "2026-04-07"),
        ("daily-1", "2026-03-28", "2000-01-01", "2026-03-29"),
        ("weekly-1-1", "2026-03-26", "2000-01-01", "2026-03-30"),
        ("weekly-2-4", "2026-03-26", "2000-01-01", "2026-04-09"),
        ("weekly-1-0", "2026-10-24", "2000-01-01", "2026-10-25"),
        ("weekly-1-7", "2026-10-24", "2000-01-01", "2026-10-25"),
        ("weekly-3-5", "2026-12-31", "2000-01-01", "2027-01-15"),
        ("weekly-1-6", "2026-03-07", "2000-01-01", "2026-03-14"),
        ("weekly-1-1", "2026-11-01", "2000-01-01", "2026-11-02"),
        ("monthly-day-31-1", "2026-01-15", "2000-01-01", "2026-02-28"),
        ("monthly-day-31-1", "2024-01-15", "2000-01-01", "2024-02-29"),
        ("monthly-day-31-1", "2026-03-31", "2000-01-01", "2026-04-30"),
        ("monthly-day-29-1", "2027-01-29", "2000-01-01", "2027-02-28"),
        ("monthly-day-29-1", "2028-01-29", "2000-01-01", "2028-02-29"),
        ("monthly-day-15-2", "2026-12-31", "2000-01-01", "2027-02-15"),
        ("monthly-day-1-1", "2026-03-29", "2000-01-01", "2026-04-01"),
        ("monthly-day-31-12", "2026-02-10", "2000-01-01", "2027-02-28"),
        ("monthly-day-5-1", "2026-03-01", "2000-01-01", "2026-04-05"),
        ("monthly-day-31-1", "2026-01-31", "2000-01-01", "2026-02-28"),
        ("monthly-day-25-1", "2026-10-25", "2000-01-01", "2026-11-25"),
        ("eerste-dag-maand", "2026-01-31", "2000-01-01", "2026-02-01"),
        ("eerste-dag-maand", "2026-12-31", "2000-01-01", "2027-01-01"),
        ("laatste-dag-maand", "2026-01-31", "2000-01-01", "2026-02-28"),
        ("laatste-dag-maand", "2024-01-31", "2000-01-01", "2024-02-29"),
        ("laatste-dag-maand", "2026-12-15", "2000-01-01", "2027-01-31"),
        ("laatste-dag-maand", "2026-02-28", "2000-01-01", "2026-03-31"),
        ("eerste-werkdag-maand", "2026-02-10", "2000-01-01", "2026-03-02"),
        ("eerste-werkdag-maand", "2026-07-20", "2000-01-01", "2026-08-03"),
        ("laatste-werkdag-maand", "2026-04-10", "2000-01-01", "2026-05-29"),
        ("laatste-werkdag-maand", "2026-12-01", "2000-01-01", "2027-01-29"),
        ("eerste-maandag-maand", "2026-01-31", "2000-01-01", "2026-03-02"),
        ("eerste-maandag-maand", "2026-01-15", "2000-01-01", "2026-02-02"),
        ("eerste-maandag-maand", "2024-01-31", "2000-01-01", "2024-03-04"),
        ("eerste-maandag-maand", "2024-01-29", "2000-01-01", "2024-02-05"),
        ("eerste-maandag-maand", "2026-03-31", "2000-01-01", "2026-05-04"),
        ("eerste-maandag-maand", "2026-10-31", "2000-01-01", "2026-12-07"),
        ("eerste-zondag-maand", "2026-02-20", "2000-01-01", "2026-03-01"),
        ("eerste-zondag-maand", "2026-12-31", "2000-01-01", "2027-01-03"),
        ("eerste-zondag-maand", "2026-10-25", "2000-01-01", "2026-11-01"),
        ("laatste-vrijdag-maand", "2026-01-31", "2000-01-01", "2026-02-27"),
        ("laatste-zondag-maand", "2026-02-10", "2000-01-01", "2026-03-29"),
        ("laatste-zondag-maand", "2026-09-30", "2000-01-01", "2026-10-25"),
        ("laatste-zondag-maand", "2026-12-31", "2000-01-01", "2027-01-31"),
        ("eerste-dag-jaar", "2024-02-29", "2000-01-01", "2025-01-01"),
        ("laatste-dag-jaar", "2026-12-31", "2000-01-01", "2027-12-31"),
        ("laatste-dag-jaar", "2024-02-29", "2000-01-01", "2025-12-31"),
        ("eerste-werkdag-jaar", "2026-05-05", "2000-01-01", "2027-01-01"),
        ("eerste-werkdag-jaar", "2027-03-03", "2000-01-01", "2028-01-03"),
        ("laatste-werkdag-jaar", "2026-06-01", "2000-01-01", "2027-12-31"),
        ("laatste-werkdag-jaar", "2027-06-01", "2000-01-01", "2028-12-29"),
        ("monthly-weekday-first-1-1", "2026-01-31", "2000-01-01", "2026-02-02"),
        ("monthly-weekday-second-3-1", "2026-03-15", "2000-01-01", "2026-04-08"),
        ("monthly-weekday-fourth-7-1", "2026-02-10", "2000-01-01", "2026-03-22"),
        ("monthly-weekday-last-7-1", "2026-02-10", "2000-01-01", "2026-03-29"),
        ("monthly-weekday-last-7-7", "2026-03-29", "2000-01-01", "2026-10-25"),
        ("monthly-weekday-first-workday-1", "2026-02-10", "2000-01-01", "2026-03-02"),
        ("monthly-weekday-last-workday-2", "2026-03-31", "2000-01-01", "2026-05-29"),
        ("monthly-weekday-second-workday-1", "2026-03-10", "2000-01-01", "2026-04-01"),
        ("monthly-weekday-third-workday-1", "2026-07-10", "2000-01-01", "2026-08-01"),
        ("monthly-weekday-last-5-1", "2026-12-31", "2000-01-01", "2027-01-29"),
        ("monthly-weekday-first-1-12", "2026-01-31", "2000-01-01", "2027-01-04"),
        ("monthly-weekday-first-7-1", "2026-10-25", "2000-01-01", "2026-11-01"),
        ("yearly-29-2-1", "2024-02-29", "2000-01-01", "2025-02-28"),
        ("yearly-29-2-1", "2027-03-01", "2000-01-01", "2028-02-29"),
        ("yearly-29-2-4", "2024-02-29", "2000-01-01", "2028-02-29"),
        ("yearly-31-4-1", "2026-01-01", "2000-01-01", "2027-04-30"),
        ("yearly-25-12-1", "2026-12-31", "2000-01-01", "2027-12-25"),
        ("yearly-25-12-1", "2026-01-10", "2000-01-01", "2027-12-25"),
        ("yearly-1-1-1", "2026-12-31", "2000-01-01", "2027-01-01"),
        ("yearly-31-12-2", "2026-03-29", "2000-01-01", "2028-12-31"),
        ("yearly-29-3-1", "2026-10-25", "2000-01-01", "2027-03-29"),
        ("yearly-31-2-1", "2026-05-05", "2000-01-01", "2027-02-28"),
        ("yearly-special-first-workday-1", "2026-03-29", "2000-01-01", "2027-01-01"),
        ("yearly-special-first-workday-2", "2026-05-05", "2000-01-01", "2028-01-03"),
        ("yearly-special-last-workday-1", "2024-02-29", "2000-01-01", "2025-12-31"),
        ("yearly-special-last-workday-2", "2026-12-31", "2000-01-01", "2028-12-29"),
        ("dagelijks", "2026-03-01", "2026-03-29", "2026-03-30"),
        ("dagelijks", "2026-03-27", "2026-03-28", "2026-03-29"),
        ("wekelijks", "2026-01-05", "2026-03-29", "2026-03-30"),
        ("2-weken", "2026-01-01", "2026-02-20", "2026-02-26"),
        ("werkdagen", "2026-03-04", "2026-03-07", "2026-03-09"),
        ("maandelijks", "2026-01-31", "2026-04-15", "2026-05-03"),
        ("jaarlijks", "2024-02-29", "2026-06-01", "2027-03-01"),
        ("3-maanden", "2025-11-30", "2026-03-02", "2026-06-02"),
        ("daily-1", "2026-03-01", "2026-03-29", "2026-03-02"),
        ("maandag", "2026-01-01", "2026-03-29", "2026-01-05"),
        ("monthly-day-31-1", "2026-01-31", "2026-06-01", "2026-02-28"),
    ]

    /// (pattern, the event date the person gives, the web app's answer).
    static let webAppEvents: [(String, String, String)] = [
        ("event-3-voor-webinar", "2026-03-31", "2026-03-28"),
        ("event-2-na-meeting", "2026-03-28", "2026-03-30"),
        ("event-1-voor-x", "2024-03-01", "2024-02-29"),
        ("event-5-na-my-big-day", "2026-12-30", "2027-01-04"),
        ("event-1-voor-", "2026-01-01", "2025-12-31"),
        ("event-1-na-dst", "2026-10-24", "2026-10-25"),
    ]

    @Test func everyPatternGivesTheWebAppsDate() throws {
        for (pattern, date, today, expected) in Self.webApp {
            let next = try TickedifyRecurrence.nextDate(for: pattern, from: Self.day(date), today: Self.day(today))
            #expect(next == Self.day(expected), "\(pattern) from \(date) (today \(today))")
        }
    }

    @Test func eventPatternsCountFromTheGivenDate() throws {
        for (pattern, eventDate, expected) in Self.webAppEvents {
            // The task's own date plays no part.
            let next = try TickedifyRecurrence.nextDate(
                for: pattern, from: Self.day("1999-06-15"), today: Self.day("2000-01-01"),
                eventDate: Self.day(eventDate))
            #expect(next == Self.day(expected), "\(pattern) from the event on \(eventDate)")
        }
    }

    @Test func everyFormOfTheWebAppIsParsed() throws {
        let expected: [(String, TickedifyRecurrence.Pattern)] = [
            ("dagelijks", .addDays(1)), ("om-de-dag", .addDays(2)), ("wekelijks", .addDays(7)),
            ("2-weken", .addDays(14)), ("3-weken", .addDays(21)), ("werkdagen", .workdays),
            ("maandelijks", .addMonths(1)), ("2-maanden", .addMonths(2)), ("3-maanden", .addMonths(3)),
            ("6-maanden", .addMonths(6)), ("jaarlijks", .addYears(1)),
            ("maandag", .nextWeekday(.monday)), ("zondag", .nextWeekday(.sunday)),
            ("eerste-dag-maand", .dayOfNextMonth(.first)), ("laatste-dag-maand", .dayOfNextMonth(.last)),
            ("eerste-werkdag-maand", .workdayOfNextMonth(.first)),
            ("laatste-werkdag-maand", .workdayOfNextMonth(.last)),
            ("eerste-woensdag-maand", .firstWeekdayOfNextMonth(.wednesday)),
            ("laatste-zaterdag-maand", .lastWeekdayOfNextMonth(.saturday)),
            ("eerste-dag-jaar", .dayOfNextYear(.first)), ("laatste-dag-jaar", .dayOfNextYear(.last)),
            ("eerste-werkdag-jaar", .workdayOfNextYear(.first)), ("laatste-werkdag-jaar", .workdayOfNextYear(.last)),
            ("daily-3", .everyDays(3)), ("weekly-2-4", .weekly(interval: 2, weekday: .thursday)),
            ("weekly-1-0", .weekly(interval: 1, weekday: .sunday)),
            ("weekly-1-7", .weekly(interval: 1, weekday: .sunday)),
            ("monthly-day-31-2", .monthlyDay(day: 31, interval: 2)),
            ("monthly-weekday-last-7-1", .monthlyWeekday(position: .last, target: .weekday(.sunday), interval: 1)),
            ("monthly-weekday-second-workday-3", .monthlyWeekday(position: .second, target: .workday, interval: 3)),
            ("yearly-29-2-1", .yearlyDate(day: 29, month: 2, interval: 1)),
            ("yearly-special-last-workday-2", .yearlyWorkday(.last, interval: 2)),
            ("event-3-voor-webinar", .event(days: 3, direction: .before, name: "webinar")),
            ("event-1-na-my-big-day", .event(days: 1, direction: .after, name: "my-big-day")),
            ("event-2-na-", .event(days: 2, direction: .after, name: "")),
        ]
        for (text, pattern) in expected {
            #expect(try TickedifyRecurrence.parse(text) == pattern, "\(text)")
        }
        // Every weekday name of the three forms that use them.
        for name in ["maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"] {
            for text in [name, "eerste-\(name)-maand", "laatste-\(name)-maand"] {
                #expect((try? TickedifyRecurrence.parse(text)) != nil, "\(text)")
            }
        }
    }

    /// Month ends and leap days, spelled out (all also in `webApp`): JS `setMonth`/`setFullYear`
    /// keep the day and roll over; the "monthly-day" and "yearly" forms clamp to the month's last day.
    @Test func monthEndsAndLeapDaysFollowJavaScriptDates() throws {
        func next(_ pattern: String, _ date: String) throws -> String {
            try TickedifyRecurrence.nextDate(for: pattern, from: Self.day(date), today: Self.day("2000-01-01"))
                .description
        }
        #expect(try next("maandelijks", "2026-01-31") == "2026-03-03")  // 31 February 2026 = 3 March
        #expect(try next("maandelijks", "2024-01-31") == "2024-03-02")  // leap year: 2 March
        #expect(try next("maandelijks", "2026-03-31") == "2026-05-01")  // 31 April = 1 May
        #expect(try next("maandelijks", "2024-02-29") == "2024-03-29")
        #expect(try next("jaarlijks", "2024-02-29") == "2025-03-01")  // 29 February 2025 = 1 March
        #expect(try next("jaarlijks", "2023-02-28") == "2024-02-28")
        #expect(try next("monthly-day-31-1", "2026-01-15") == "2026-02-28")
        #expect(try next("monthly-day-31-1", "2024-01-15") == "2024-02-29")
        #expect(try next("monthly-day-31-1", "2026-03-31") == "2026-04-30")
        #expect(try next("yearly-29-2-1", "2024-02-29") == "2025-02-28")
        #expect(try next("yearly-29-2-4", "2024-02-29") == "2028-02-29")
        #expect(try next("yearly-31-2-1", "2026-05-05") == "2027-02-28")
        // setMonth before setDate(1): from 31 January, the first Monday of "next month" is in March.
        #expect(try next("eerste-maandag-maand", "2026-01-31") == "2026-03-02")
        #expect(try next("eerste-maandag-maand", "2024-01-29") == "2024-02-05")
        // monthly-weekday with "workday" computes only first and last; the others give the 1st.
        #expect(try next("monthly-weekday-third-workday-1", "2026-07-10") == "2026-08-01")
        // Year end.
        #expect(try next("dagelijks", "2026-12-31") == "2027-01-01")
        #expect(try next("werkdagen", "2026-12-31") == "2027-01-01")
        #expect(try next("maandelijks", "2026-12-31") == "2027-01-31")
        #expect(try next("laatste-werkdag-jaar", "2027-06-01") == "2028-12-29")
    }

    @Test func catchingUpStepsUntilAfterToday() throws {
        func next(_ pattern: String, _ date: String, today: String) throws -> String {
            try TickedifyRecurrence.nextDate(for: pattern, from: Self.day(date), today: Self.day(today)).description
        }
        // Today itself is not after today: one more step.
        #expect(try next("dagelijks", "2026-03-27", today: "2026-03-28") == "2026-03-29")
        #expect(try next("dagelijks", "2026-03-28", today: "2026-03-28") == "2026-03-29")
        #expect(try next("dagelijks", "2016-03-28", today: "2026-03-28") == "2026-03-29")
        #expect(try next("om-de-dag", "2026-03-20", today: "2026-03-28") == "2026-03-30")
        #expect(try next("werkdagen", "2026-03-04", today: "2026-03-07") == "2026-03-09")
        #expect(try next("werkdagen", "2016-03-04", today: "2026-03-09") == "2026-03-10")
        // The day drifts as the steps overflow: 31 Jan → 3 Mar → 3 Apr → 3 May.
        #expect(try next("maandelijks", "2026-01-31", today: "2026-04-15") == "2026-05-03")
        #expect(try next("jaarlijks", "2024-02-29", today: "2026-06-01") == "2027-03-01")
        // The other forms answer their first step, even in the past.
        #expect(try next("daily-1", "2026-03-01", today: "2026-03-29") == "2026-03-02")
        #expect(try next("monthly-day-31-1", "2026-01-31", today: "2026-06-01") == "2026-02-28")
    }

    /// The dates are calendar days: a task on the day of a DST change, read in that zone, gets the
    /// same next date as anywhere else, though the day has 23 or 25 hours there.
    @Test(arguments: [
        ("Europe/Amsterdam", "2026-03-29", 23), ("Europe/Amsterdam", "2026-10-25", 25),
        ("America/New_York", "2026-03-08", 23), ("America/New_York", "2026-11-01", 25),
    ])
    func theDaysOfDSTChangesAreOrdinaryDays(zoneName: String, change: String, hours: Int) throws {
        let changeDay = Self.day(change)
        let today = Self.day("2000-01-01")
        for zone in [zoneName, "Europe/Amsterdam", "America/New_York", "UTC", "Pacific/Auckland"] {
            let timeZone = try #require(TimeZone(identifier: zone))
            // The task's date as the household's zone reads an instant late on that day.
            let base = LocalDate(containing: changeDay.date(hour: 23, minute: 30, in: timeZone), in: timeZone)
            #expect(base == changeDay)
            let expected: [(String, LocalDate)] = [
                ("dagelijks", changeDay.adding(days: 1)), ("daily-1", changeDay.adding(days: 1)),
                ("wekelijks", changeDay.adding(days: 7)), ("om-de-dag", changeDay.adding(days: 2)),
                ("maandelijks", TickedifyRecurrence.js(changeDay.year, changeDay.month, changeDay.day)),
                ("jaarlijks", LocalDate(year: changeDay.year + 1, month: changeDay.month, day: changeDay.day)),
                ("zondag", changeDay.adding(days: 7)),  // all four changes fall on a Sunday
                ("weekly-1-7", changeDay.adding(days: 7)), ("weekly-1-1", changeDay.adding(days: 1)),
                ("werkdagen", changeDay.adding(days: 1)),
            ]
            for (pattern, next) in expected {
                #expect(
                    try TickedifyRecurrence.nextDate(for: pattern, from: base, today: today) == next,
                    "\(pattern) from \(change) in \(zone)")
            }
            // Stepping onto the change: from the day before.
            #expect(
                try TickedifyRecurrence.nextDate(for: "dagelijks", from: changeDay.adding(days: -1), today: today)
                    == changeDay)
        }
        let zone = try #require(TimeZone(identifier: zoneName))
        #expect(changeDay.interval(in: zone).duration == Double(hours * 3600))
        #expect(changeDay.weekday == 6)
    }

    @Test(arguments: [
        ("", TickedifyRecurrence.Refusal.empty),
        ("elke-dag", .unknownPattern("elke-dag")), ("Dagelijks", .unknownPattern("Dagelijks")),
        ("monthly", .unknownPattern("monthly")), ("dagelijks ", .unknownPattern("dagelijks ")),
    ])
    func unknownPatternsAreRefused(text: String, refusal: TickedifyRecurrence.Refusal) {
        #expect(throws: refusal) { try TickedifyRecurrence.parse(text) }
        #expect(throws: refusal) {
            try TickedifyRecurrence.nextDate(for: text, from: Self.day("2026-03-10"), today: Self.day("2026-03-10"))
        }
    }

    @Test(arguments: [
        "weekly-1-", "weekly-1-1,3", "weekly-0-3", "weekly-1-8", "weekly-x-1", "weekly-1-1-1", "weekly",
        "daily-0", "daily-3x", "daily- 3", "daily-+3", "daily-", "daily-3.5", "daily-1234567890", "daily-1-2",
        "monthly-day-32-1", "monthly-day-0-1", "monthly-day-15-0", "monthly-day-15", "monthly-day--1-1",
        "yearly-29-13-1", "yearly-0-1-1", "yearly-1-1", "yearly-1-1-0", "yearly-25-12-1-1",
        "monthly-weekday-fifth-1-1", "monthly-weekday-first-0-1", "monthly-weekday-first-8-1",
        "monthly-weekday-first-1-0", "monthly-weekday-first-1",
        "yearly-special-first-workday", "yearly-special-middle-workday-1", "yearly-special-first-workday-0",
        "yearly-special-first-day-1", "event-x-voor-y", "event-3-later-y", "event-3", "event--3-voor-y",
    ])
    func malformedPatternsAreRefused(text: String) {
        let refusal = #expect(throws: TickedifyRecurrence.Refusal.self) { try TickedifyRecurrence.parse(text) }
        guard case .malformed(let pattern, let reason) = refusal else {
            Issue.record("\(text): \(String(describing: refusal))")
            return
        }
        #expect(pattern == text)
        #expect(!reason.isEmpty)
    }

    @Test func refusalsSayWhichPatternAndWhy() throws {
        let sunday = TickedifyRecurrence.Refusal.malformed(
            pattern: "monthly-weekday-first-0-1",
            reason:
                "Sunday is written as 0, which the web app does not accept here (only 1–7), so it creates no next task")
        #expect(throws: sunday) { try TickedifyRecurrence.parse("monthly-weekday-first-0-1") }
        #expect(
            sunday.description
                == "The recurrence pattern \"monthly-weekday-first-0-1\" cannot be computed: Sunday is written as 0, "
                + "which the web app does not accept here (only 1–7), so it creates no next task.")
        #expect(
            TickedifyRecurrence.Refusal.unknownPattern("elke-dag").description
                == "The recurrence pattern \"elke-dag\" is not one the Tickedify web app knows, "
                + "so daygate cannot compute the next date.")
        #expect(
            TickedifyRecurrence.Refusal.needsEventDate(pattern: "event-3-voor-webinar").description
                == "The recurrence pattern \"event-3-voor-webinar\" counts from an event: "
                + "give the date of the next event to compute the next date.")
    }

    @Test func anEventPatternNeedsTheEventDate() {
        #expect(throws: TickedifyRecurrence.Refusal.needsEventDate(pattern: "event-3-voor-webinar")) {
            try TickedifyRecurrence.nextDate(
                for: "event-3-voor-webinar", from: Self.day("2026-03-10"), today: Self.day("2026-03-10"))
        }
        #expect(throws: TickedifyRecurrence.Refusal.eventDateNotApplicable(pattern: "dagelijks")) {
            try TickedifyRecurrence.nextDate(
                for: "dagelijks", from: Self.day("2026-03-10"), today: Self.day("2026-03-10"),
                eventDate: Self.day("2026-03-20"))
        }
    }

    @Test func answersOutsideTheYears1To9999AreRefused() {
        let today = Self.day("2000-01-01")
        #expect(throws: TickedifyRecurrence.Refusal.outOfRange(pattern: "dagelijks")) {
            try TickedifyRecurrence.nextDate(for: "dagelijks", from: Self.day("9999-12-31"), today: today)
        }
        #expect(throws: TickedifyRecurrence.Refusal.outOfRange(pattern: "daily-999999999")) {
            try TickedifyRecurrence.nextDate(for: "daily-999999999", from: Self.day("2026-03-10"), today: today)
        }
        #expect(throws: TickedifyRecurrence.Refusal.outOfRange(pattern: "monthly-day-1-999999")) {
            try TickedifyRecurrence.nextDate(for: "monthly-day-1-999999", from: Self.day("2026-03-10"), today: today)
        }
        #expect(throws: TickedifyRecurrence.Refusal.outOfRange(pattern: "event-9-voor-x")) {
            try TickedifyRecurrence.nextDate(
                for: "event-9-voor-x", from: Self.day("2026-03-10"), today: today, eventDate: Self.day("0001-01-03"))
        }
        #expect(
            (try? TickedifyRecurrence.nextDate(for: "daily-5000", from: Self.day("2026-03-10"), today: today))
                == Self.day("2026-03-10").adding(days: 5000))
    }
}

/// What the completion does with a task's recurrence before it sends anything.
struct TickedifyCompletionRecurrenceTests {
    let today = LocalDate("2026-11-26")!

    @Test func aOneOffTaskHasNoRecurrence() {
        #expect(
            TickedifyTaskWrites.recurrence(
                of: .object(["herhalingActief": .bool(false), "herhalingType": .string("dagelijks")])) == nil)
        #expect(
            TickedifyTaskWrites.recurrence(of: .object(["herhalingActief": .bool(true), "herhalingType": .string("")]))
                == nil)
        #expect(
            TickedifyTaskWrites.recurrence(of: .object(["herhalingActief": .bool(true), "herhalingType": .null])) == nil
        )
        #expect(
            TickedifyTaskWrites.recurrence(
                of: .object(["herhalingActief": .bool(true), "herhalingType": .string("weekly-1-4")])) == "weekly-1-4"
        )
    }

    @Test func theNextDateCountsFromTheTasksOwnDay() throws {
        let task = JSONValue.object([
            "verschijndatum": .string("2026-11-26T00:00:00.000Z"), "herhalingType": .string("weekly-1-4"),
        ])
        #expect(
            try TickedifyTaskWrites.nextDate(of: task, pattern: "weekly-1-4", today: today) == LocalDate("2026-12-03"))
    }

    /// A pattern daygate cannot compute is refused before anything is sent: a 422 naming it.
    @Test func aPatternThatCannotBeComputedIsA422() {
        for pattern in ["event-3-voor-vergadering", "elke-volle-maan", "weekly-1-"] {
            do {
                _ = try TickedifyTaskWrites.nextDate(of: .object([:]), pattern: pattern, today: today)
                Issue.record("\(pattern) was computed")
            } catch {
                #expect(error.status == 422)
                #expect(error.code == "recurrence_not_computable")
                #expect(error.message.contains(pattern))
            }
        }
    }
}
