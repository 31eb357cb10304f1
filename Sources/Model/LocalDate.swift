import Foundation
import Synchronization

/// A calendar day (`YYYY-MM-DD`) without a zone. The configured IANA zone decides which
/// instants belong to it; `interval(in:)` handles days of 23 or 25 hours around DST changes.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Strict `YYYY-MM-DD` of a real calendar day; anything else is nil.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
            year >= 1, (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            calendar.component(.day, from: date) == day
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day a backend DATE field starts with: `2026-11-22T00:00:00.000Z` or `2026-11-22`
    /// (the first 10 characters, as the backends' own clients read them).
    public init?(leadingDayOf text: String) {
        self.init(String(text.prefix(10)))
    }

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `instant` falls on in `zone`.
    public init(containing instant: Date, in zone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// The day `now` falls on in `zone`. The last answer is kept with the instants its day
    /// spans there (23 or 25 hours around a DST change), so asking again on the same day —
    /// every request does — costs a comparison instead of a calendar computation.
    public static func today(in zone: TimeZone, now: Date = Date()) -> LocalDate {
        let kept = lastToday.withLock { kept -> LocalDate? in
            guard let kept, kept.zone == zone, kept.interval.start <= now, now < kept.interval.end else { return nil }
            return kept.date
        }
        if let kept { return kept }
        let date = LocalDate(containing: now, in: zone)
        let interval = date.interval(in: zone)
        lastToday.withLock { $0 = (zone, interval, date) }
        return date
    }

    private static let lastToday = Mutex<(zone: TimeZone, interval: DateInterval, date: LocalDate)?>(nil)

    public func adding(days: Int) -> LocalDate {
        if days == 0 { return self }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
        return LocalDate(containing: calendar.date(byAdding: .day, value: days, to: noon)!, in: .gmt)
    }

    /// Whole days from `self` to `other` (positive when `other` is later).
    public func days(to other: LocalDate) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let start = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let end = calendar.date(from: DateComponents(year: other.year, month: other.month, day: other.day))!
        return Int((end.timeIntervalSince(start) / 86_400).rounded())
    }

    /// The first instant of this day in `zone` (local midnight, or the first existing
    /// instant when a DST change skips midnight).
    public func start(in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
        return calendar.startOfDay(for: noon)
    }

    /// `[start of this day, start of the next day)` in `zone`.
    public func interval(in zone: TimeZone) -> DateInterval {
        DateInterval(start: start(in: zone), end: adding(days: 1).start(in: zone))
    }

    public var description: String {
        Self.padded(year, 4) + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = LocalDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a date YYYY-MM-DD")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
