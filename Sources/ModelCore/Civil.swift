import Foundation

/// Proleptic Gregorian calendar arithmetic without time zones — the one calendar library of the
/// gateway, the ICS reader and the simulators. Days are numbered from 1970-01-01 (day 0);
/// wall times are microseconds since 1970-01-01T00:00:00 of the same zone-less clock.
/// ``LocalDate`` is the typed day built on it; zones enter only where an instant is needed
/// (``LocalDate/start(in:)``, ``LocalDate/date(hour:minute:second:in:)``).
public enum Civil {
    public static let microsPerSecond: Int64 = 1_000_000
    public static let microsPerDay: Int64 = 86_400 * 1_000_000

    /// `a / b` rounded towards negative infinity.
    public static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Whether `year` is a Gregorian leap year.
    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// 28…31 (0 for a month outside 1…12).
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: 31
        case 4, 6, 9, 11: 30
        case 2: isLeap(year) ? 29 : 28
        default: 0
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
    public static func date(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
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

    // MARK: - Wall times in microseconds

    public static func micros(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, micro: Int = 0
    ) -> Int64 {
        Int64(days(year: year, month: month, day: day)) * microsPerDay
            + (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * microsPerSecond + Int64(micro)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]` (the fraction only when non-zero, always 6 digits) — Python's
    /// `datetime.isoformat()` of a naive time.
    public static func isoString(_ micros: Int64) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(32)
        appendISO(micros, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `isoString(micros)`'s bytes: every time in every answer is written here, and
    /// building it from padded strings made eight strings per time.
    public static func appendISO(_ micros: Int64, to text: inout [UInt8]) {
        let days = micros >= 0 ? micros / microsPerDay : (micros - microsPerDay + 1) / microsPerDay
        let rest = micros - days * microsPerDay
        let (y, m, d) = date(fromDays: Int(days))
        let secs = Int(rest / microsPerSecond)
        let frac = Int(rest % microsPerSecond)
        appendPadded(y, 4, to: &text)
        text.append(UInt8(ascii: "-"))
        appendPadded(m, 2, to: &text)
        text.append(UInt8(ascii: "-"))
        appendPadded(d, 2, to: &text)
        text.append(UInt8(ascii: "T"))
        appendPadded(secs / 3600, 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendPadded(secs / 60 % 60, 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendPadded(secs % 60, 2, to: &text)
        if frac != 0 {
            text.append(UInt8(ascii: "."))
            appendPadded(frac, 6, to: &text)
        }
    }

    // MARK: - Text

    /// A strict `YYYY-MM-DD` of a real day.
    public static func parseDay(_ s: String) -> (year: Int, month: Int, day: Int)? {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            let y = digits(b, 0, 4), let m = digits(b, 5, 2), let d = digits(b, 8, 2),
            y >= 1, (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y)
        else { return nil }
        return (y, m, d)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Appends `pad(value, width)`'s bytes.
    public static func appendPadded(_ value: Int, _ width: Int, to text: inout [UInt8]) {
        guard value >= 0 else {
            text.append(contentsOf: pad(value, width).utf8)
            return
        }
        let start = text.count
        var rest = value
        repeat {
            text.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        while text.count - start < width { text.append(UInt8(ascii: "0")) }
        text[start...].reverse()
    }

    /// The decimal value of `count` ASCII digits at `at`, or nil.
    public static func digits(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
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
