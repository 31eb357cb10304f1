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
        guard let (year, month, day) = Civil.parseDay(text) else { return nil }
        self.init(year: year, month: month, day: day)
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
        // Within the Gregorian era of Foundation's calendar (it counts Julian days before
        // 1582-10-15) and well inside Int: the zone's offset at the instant and the civil
        // date of the local day number, without a calendar computation. Equal to the calendar's
        // answer (`LocalDateContainingTests`).
        let seconds = instant.timeIntervalSince1970
        if seconds > Self.gregorianSeconds.lowerBound, seconds < Self.gregorianSeconds.upperBound {
            let local = Int(seconds.rounded(.down)) + zone.secondsFromGMT(for: instant)
            let (year, month, day) = Civil.date(fromDays: Civil.floorDiv(local, 86_400))
            self.init(year: year, month: month, day: day)
            return
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// Instants (seconds since 1970) whose day is computed without a calendar: from 1583-01-02
    /// to the year 9999.
    static let gregorianSeconds: Range<TimeInterval> = -12_212_467_200..<253_402_214_400

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

    /// The day `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        let (year, month, day) = Civil.date(fromDays: dayNumber)
        self.init(year: year, month: month, day: day)
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int { Civil.days(year: year, month: month, day: day) }

    /// Monday = 0 … Sunday = 6.
    public var weekday: Int { Civil.weekday(ofDay: dayNumber) }

    public func adding(days: Int) -> LocalDate {
        days == 0 ? self : LocalDate(dayNumber: dayNumber + days)
    }

    /// Whole days from `self` to `other` (positive when `other` is later).
    public func days(to other: LocalDate) -> Int {
        other.dayNumber - dayNumber
    }

    /// The instant of the wall time `hour:minute:second` on this day in `zone`; a time a DST
    /// change skips or repeats resolves as Foundation's calendar does (the later offset for a gap,
    /// the first occurrence for an overlap).
    public func date(hour: Int, minute: Int, second: Int = 0, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if let date = calendar.date(from: components) { return date }
        let wall = Civil.micros(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return Date(timeIntervalSince1970: Double(wall / Civil.microsPerSecond - Int64(zone.secondsFromGMT())))
    }

    /// The first instant of this day in `zone` (local midnight, or the first existing
    /// instant when a DST change skips midnight).
    public func start(in zone: TimeZone) -> Date {
        // Local midnight by the zone's offset, when midnight exists once and nothing earlier
        // belongs to the day (every day but a few transition days in a few zones): calendars
        // ask this for every occurrence they place, and `Calendar` made it a twentieth of a cold
        // day's CPU. Otherwise (a DST change at midnight) `Calendar` decides.
        if year > 1582 {
            let midnight = Double(Civil.days(year: year, month: month, day: day) * 86_400)
            let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight))
            let candidate = midnight - Double(offset)
            // The same offset at the candidate and two hours before it: no change lies between
            // (no zone changes twice in two hours), so neither a gap nor an overlap of up to two
            // hours reaches midnight.
            if zone.secondsFromGMT(for: Date(timeIntervalSince1970: candidate)) == offset,
                zone.secondsFromGMT(for: Date(timeIntervalSince1970: candidate - 7200)) == offset
            {
                return Date(timeIntervalSince1970: candidate)
            }
        }
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
        Civil.pad(year, 4) + "-" + Civil.pad(month, 2) + "-" + Civil.pad(day, 2)
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
