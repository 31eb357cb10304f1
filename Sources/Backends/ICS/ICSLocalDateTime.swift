import Foundation
import Model

/// A wall-clock date and time without a zone (`20260329T023000`), with the day arithmetic the
/// recurrence rules need. Days are counted as proleptic Gregorian day numbers (0 = 1970-01-01),
/// so no `Calendar` is involved and invalid dates (February 30) simply never exist.
public struct ICSLocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Midnight (or `hour:minute:second`) of a day number.
    public init(dayNumber: Int, secondOfDay: Int = 0) {
        let (year, month, day) = Self.civil(fromDays: dayNumber)
        self.init(
            year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60)
    }

    /// The wall-clock time of `seconds` since 1970-01-01T00:00:00 (of this wall clock).
    public init(wallSeconds seconds: Int) {
        let days = Self.floorDiv(seconds, 86_400)
        self.init(dayNumber: days, secondOfDay: seconds - days * 86_400)
    }

    /// Midnight of `date`.
    public init(_ date: LocalDate) {
        self.init(year: date.year, month: date.month, day: date.day)
    }

    /// Whether the fields name a real day and time (no February 30, no 25:00).
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second)
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int { Self.days(year: year, month: month, day: day) }

    /// Seconds since midnight.
    public var secondOfDay: Int { hour * 3600 + minute * 60 + second }

    /// Seconds since 1970-01-01T00:00:00 of this wall clock (as if it were UTC).
    public var wallSeconds: Int { dayNumber * 86_400 + min(secondOfDay, 86_399) }

    /// Monday = 0 … Sunday = 6.
    public var weekday: Int { Self.weekday(ofDay: dayNumber) }

    /// The calendar day.
    public var date: LocalDate { LocalDate(year: year, month: month, day: day) }

    /// This wall clock moved by `seconds` (crossing days and months as a clock does).
    public func adding(seconds: Int) -> ICSLocalDateTime { ICSLocalDateTime(wallSeconds: wallSeconds + seconds) }

    /// The same time of day, `days` later.
    public func adding(days: Int) -> ICSLocalDateTime {
        ICSLocalDateTime(dayNumber: dayNumber + days, secondOfDay: secondOfDay)
    }

    /// The instant this wall clock names when it is UTC.
    public var utcDate: Date { Date(timeIntervalSince1970: TimeInterval(wallSeconds)) }

    /// The UTC wall clock of an instant.
    public init(utc date: Date) {
        self.init(wallSeconds: Int(date.timeIntervalSince1970.rounded(.down)))
    }

    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(hour, 2) + pad(minute, 2) + pad(second, 2)
    }

    public static func < (lhs: ICSLocalDateTime, rhs: ICSLocalDateTime) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
            < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
    }

    // MARK: - Calendar arithmetic

    /// `a / b` rounded towards negative infinity.
    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Whether `year` is a Gregorian leap year.
    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// 28…31.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// 365 or 366.
    public static func daysIn(year: Int) -> Int { isLeap(year) ? 366 : 365 }

    /// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm); months outside 1…12 roll over.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let extraYears = floorDiv(month - 1, 12)
        let normalizedMonth = month - extraYears * 12
        let y = year + extraYears - (normalizedMonth <= 2 ? 1 : 0)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (normalizedMonth + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day number.
    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Monday = 0 … Sunday = 6 of a day number (1970-01-01 was a Thursday).
    public static func weekday(ofDay days: Int) -> Int { ((days % 7) + 7 + 3) % 7 }
}
