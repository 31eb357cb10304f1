import Foundation

// Calendar helpers every simulator needs: proleptic Gregorian day arithmetic, the household's
// "today", day numbers and local wall times on the days around a seed day.

// MARK: - Calendar arithmetic

/// Proleptic Gregorian day arithmetic on microseconds since 1970-01-01T00:00:00 (no time zones).
enum Civil {
    static let microsPerSecond: Int64 = 1_000_000
    static let microsPerDay: Int64 = 86_400 * 1_000_000

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 1, 3, 5, 7, 8, 10, 12: 31
        case 4, 6, 9, 11: 30
        case 2: isLeap(y) ? 29 : 28
        default: 0
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func date(fromDays z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    static func micros(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, micro: Int = 0)
        -> Int64
    {
        days(year: year, month: month, day: day) * microsPerDay
            + (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * microsPerSecond + Int64(micro)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]` (the fraction only when non-zero, always 6 digits).
    static func isoString(_ micros: Int64) -> String {
        let days = micros >= 0 ? micros / microsPerDay : (micros - microsPerDay + 1) / microsPerDay
        let rest = micros - days * microsPerDay
        let (y, m, d) = date(fromDays: days)
        let secs = rest / microsPerSecond
        let frac = rest % microsPerSecond
        var s =
            "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(Int(secs / 3600), 2)):\(pad(Int(secs / 60 % 60), 2)):\(pad(Int(secs % 60), 2))"
        if frac != 0 { s += "." + pad(Int(frac), 6) }
        return s
    }

    /// Parses a strict `YYYY-MM-DD`.
    static func parseDay(_ s: String) -> (year: Int, month: Int, day: Int)? {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            let y = digits(b, 0, 4), let m = digits(b, 5, 2), let d = digits(b, 8, 2),
            (1...12).contains(m), d >= 1, d <= daysInMonth(y, m)
        else { return nil }
        return (y, m, d)
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// The decimal value of `count` ASCII digits at `at`, or nil.
    static func digits(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        var v = 0
        for i in at..<(at + count) {
            let c = b[i]
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            v = v * 10 + Int(c - UInt8(ascii: "0"))
        }
        return v
    }
}

// MARK: - Days in a time zone

extension Civil {
    /// `YYYY-MM-DD`: the day `date` falls on in `timeZone` (default: today).
    static func today(in timeZone: TimeZone, at date: Date = Date()) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return "\(pad(c.year ?? 1970, 4))-\(pad(c.month ?? 1, 2))-\(pad(c.day ?? 1, 2))"
    }

    /// Days since 1970-01-01 of a strict `YYYY-MM-DD`, or nil.
    static func dayNumber(_ day: String) -> Int64? {
        guard let (y, m, d) = parseDay(day) else { return nil }
        return days(year: y, month: m, day: d)
    }

    /// `YYYY-MM-DD` of a day number (days since 1970-01-01).
    static func dayString(_ days: Int64) -> String {
        let (y, m, d) = date(fromDays: days)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }
}

/// Local wall times on the days around a seed day, as UTC instants: how every simulator turns its
/// seeded "Tuesday 18:30 at home" into what the server stores.
struct SeedCalendar {
    /// The seed day as days since 1970-01-01.
    let seedDays: Int64
    let timeZone: TimeZone
    private let calendar: Calendar

    init(seedDays: Int64, timeZone: TimeZone) {
        self.seedDays = seedDays
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// Nil when `seedDay` is not a strict `YYYY-MM-DD`.
    init?(seedDay: String, timeZone: TimeZone) {
        guard let days = Civil.dayNumber(seedDay) else { return nil }
        self.init(seedDays: days, timeZone: timeZone)
    }

    /// Seconds since 1970 of the local time `hour:minute:second` on seed day + `dayOffset`
    /// (Foundation's resolution of DST gaps and overlaps; the zone's current offset as a fallback).
    func utcSeconds(_ dayOffset: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Int64 {
        let (y, m, d) = Civil.date(fromDays: seedDays + Int64(dayOffset))
        let components = DateComponents(year: y, month: m, day: d, hour: hour, minute: minute, second: second)
        if let date = calendar.date(from: components) {
            return Int64(date.timeIntervalSince1970.rounded())
        }
        return Civil.micros(year: y, month: m, day: d, hour: hour, minute: minute, second: second)
            / Civil.microsPerSecond
            - Int64(timeZone.secondsFromGMT())
    }

    /// ``utcSeconds(_:_:_:_:)`` of `hm` (hour, minute) in microseconds.
    func utcMicros(_ dayOffset: Int, _ hm: (Int, Int)) -> Int64 {
        utcSeconds(dayOffset, hm.0, hm.1) * Civil.microsPerSecond
    }
}
