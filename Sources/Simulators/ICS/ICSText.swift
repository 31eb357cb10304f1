import Foundation
import Model

/// Dates and times in iCalendar form.
enum ICSTime {
    /// `YYYYMMDD` of a day number.
    static func date(_ days: Int) -> String {
        let (y, m, d) = Civil.date(fromDays: days)
        return Civil.pad(y, 4) + Civil.pad(m, 2) + Civil.pad(d, 2)
    }

    /// `YYYYMMDDTHHMMSS` (a local, "floating" or TZID-qualified, time).
    static func local(_ days: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> String {
        date(days) + "T" + Civil.pad(hour, 2) + Civil.pad(minute, 2) + Civil.pad(second, 2)
    }

    /// `YYYYMMDDTHHMMSSZ` of seconds since 1970.
    static func utc(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = Int(seconds - days * 86_400)
        return local(Int(days), rest / 3600, rest / 60 % 60, rest % 60) + "Z"
    }

    /// The weekday of a day number: 0 = Sunday … 6 = Saturday.
    static func weekday(_ days: Int) -> Int {
        (Civil.weekday(ofDay: days) + 1) % 7
    }

    /// The last day ≤ `days` that is `weekday`.
    static func onOrBefore(_ days: Int, weekday: Int) -> Int {
        days - (Self.weekday(days) - weekday + 7) % 7
    }

    /// The first day ≥ `days` that is `weekday`.
    static func onOrAfter(_ days: Int, weekday: Int) -> Int {
        days + (weekday - Self.weekday(days) + 7) % 7
    }

    /// Easter Sunday of `year` (Gregorian; the anonymous Meeus/Jones/Butcher algorithm).
    static func easter(_ year: Int) -> (month: Int, day: Int) {
        let a = year % 19
        let b = year / 100
        let c = year % 100
        let d = b / 4
        let e = b % 4
        let f = (b + 8) / 25
        let g = (b - f + 1) / 3
        let h = (19 * a + b - d - g + 15) % 30
        let i = c / 4
        let k = c % 4
        let l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31
        let day = (h + l - 7 * m + 114) % 31 + 1
        return (month, day)
    }
}
