import Foundation
import ModelCore

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
        let (year, month, day) = Civil.date(fromDays: dayNumber)
        self.init(
            year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60)
    }

    /// The wall-clock time of `seconds` since 1970-01-01T00:00:00 (of this wall clock).
    public init(wallSeconds seconds: Int) {
        let days = Civil.floorDiv(seconds, 86_400)
        self.init(dayNumber: days, secondOfDay: seconds - days * 86_400)
    }

    /// Midnight of `date`.
    public init(_ date: LocalDate) {
        self.init(year: date.year, month: date.month, day: date.day)
    }

    /// Whether the fields name a real day and time (no February 30, no 25:00).
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Civil.daysIn(month: month, year: year)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second)
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int { Civil.days(year: year, month: month, day: day) }

    /// Seconds since midnight.
    public var secondOfDay: Int { hour * 3600 + minute * 60 + second }

    /// Seconds since 1970-01-01T00:00:00 of this wall clock (as if it were UTC).
    public var wallSeconds: Int { dayNumber * 86_400 + min(secondOfDay, 86_399) }

    /// Monday = 0 … Sunday = 6.
    public var weekday: Int { Civil.weekday(ofDay: dayNumber) }

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
}
