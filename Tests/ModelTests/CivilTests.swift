import Foundation
import Model
import Testing

/// The one calendar library (gateway, ICS reader and simulators): day numbers, weekdays, wall
/// times and HTTP dates, checked against Foundation's Gregorian calendar.
@Suite("Civil calendar")
struct CivilTests {
    @Test func dayNumbersRoundTripAndAgreeWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        // 1600-03-01 … 2400-02-28 in strides that hit leap days, century rules and negatives.
        for dayNumber in stride(from: -135_140, through: 157_000, by: 97) {
            let (y, m, d) = Civil.date(fromDays: dayNumber)
            #expect(Civil.days(year: y, month: m, day: d) == dayNumber)
            let date = try #require(calendar.date(from: DateComponents(year: y, month: m, day: d)))
            #expect(Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) == dayNumber, "\(y)-\(m)-\(d)")
            let foundationWeekday = calendar.component(.weekday, from: date)  // 1 = Sunday
            #expect(Civil.weekday(ofDay: dayNumber) == (foundationWeekday + 5) % 7, "Monday = 0")
        }
        #expect(
            Civil.days(year: 2026, month: 13, day: 1) == Civil.days(year: 2027, month: 1, day: 1), "months roll over")
        #expect(Civil.daysIn(month: 2, year: 2000) == 29)
        #expect(Civil.daysIn(month: 2, year: 1900) == 28)
        #expect(Civil.daysIn(month: 2, year: 2028) == 29)
    }

    @Test func wallTimesInMicroseconds() {
        let micros = Civil.micros(year: 2026, month: 11, day: 24, hour: 6, minute: 7, second: 8, micro: 9)
        #expect(Civil.isoString(micros) == "2026-11-24T06:07:08.000009")
        #expect(Civil.isoString(Civil.micros(year: 1969, month: 12, day: 31, hour: 23)) == "1969-12-31T23:00:00")
    }

    @Test func httpDates() {
        #expect(Civil.httpDate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(Civil.httpDate(1_795_392_000) == "Mon, 23 Nov 2026 00:00:00 GMT")
        #expect(Civil.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(Civil.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(Civil.parseHTTPDate("yesterday") == nil)
        #expect(Civil.parseHTTPDate("Sun, 31 Feb 1994 08:49:37 GMT") == nil)
        for seconds: Int64 in [0, 951_782_400, 1_795_478_399, 4_102_444_800] {
            #expect(Civil.parseHTTPDate(Civil.httpDate(seconds)) == seconds)
        }
    }

    @Test func localDatesCountDaysWithoutAZone() throws {
        let day = try #require(LocalDate("2028-02-28"))
        #expect(day.adding(days: 1).description == "2028-02-29")
        #expect(day.adding(days: 2).description == "2028-03-01")
        #expect(day.adding(days: -59).description == "2027-12-31")
        #expect(LocalDate(dayNumber: day.dayNumber) == day)
        #expect(day.days(to: try #require(LocalDate("2029-02-28"))) == 366)
        #expect(try #require(LocalDate("2026-11-23")).weekday == 0, "a Monday")
        #expect(LocalDate("2027-02-29") == nil)
        #expect(LocalDate("0000-01-01") == nil)
    }

    /// A wall time on a day in a zone: west and east of UTC, and on both DST change days.
    @Test(arguments: [
        ("America/New_York", "2026-03-08", 3, 30, "2026-03-08T07:30:00Z"),  // after the spring gap
        ("America/New_York", "2026-11-01", 1, 30, "2026-11-01T05:30:00Z"),  // the first 01:30 of the overlap
        ("Pacific/Auckland", "2026-04-05", 12, 0, "2026-04-05T00:00:00Z"),  // NZST after the autumn change
        ("Pacific/Auckland", "2026-09-27", 23, 59, "2026-09-27T10:59:00Z"),  // NZDT after the spring change
        ("Europe/Amsterdam", "2026-03-29", 0, 0, "2026-03-28T23:00:00Z"),
    ])
    func wallTimesInAZone(zone: String, day: String, hour: Int, minute: Int, expected: String) throws {
        let tz = try #require(TimeZone(identifier: zone))
        let date = try #require(LocalDate(day)).date(hour: hour, minute: minute, in: tz)
        #expect(LenientDate.format(date, in: .gmt) == expected)
    }
}
