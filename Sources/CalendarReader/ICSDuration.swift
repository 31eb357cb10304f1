/// A DURATION value (RFC 5545 §3.3.6): weeks and days are nominal (a day is a calendar day,
/// 23 or 25 hours around a DST change), hours, minutes and seconds are exact.
public struct ICSDuration: Sendable, Equatable {
    /// Whole calendar days (weeks × 7 + days), negative for a negative duration.
    public var days: Int
    /// Exact seconds, negative for a negative duration.
    public var seconds: Int

    public init(days: Int = 0, seconds: Int = 0) {
        self.days = days
        self.seconds = seconds
    }

    /// Parses `P1W`, `PT1H30M`, `-P1DT2H`, `P2D`.
    public init?(_ text: String) {
        var scalars = Array(text.trimmingWhitespace.uppercased().unicodeScalars)
        var sign = 1
        if scalars.first == "+" || scalars.first == "-" {
            sign = scalars.first == "-" ? -1 : 1
            scalars.removeFirst()
        }
        guard scalars.first == "P", scalars.count > 1 else { return nil }
        scalars.removeFirst()
        var inTime = false
        var number: Int?
        var days = 0
        var seconds = 0
        var sawUnit = false
        for scalar in scalars {
            if let digit = Int(String(scalar)), ("0"..."9").contains(scalar) {
                number = (number ?? 0) * 10 + digit
                guard number! < 100_000_000 else { return nil }
                continue
            }
            if scalar == "T" {
                guard !inTime, number == nil else { return nil }
                inTime = true
                continue
            }
            guard let value = number else { return nil }
            switch (scalar, inTime) {
            case ("W", false): days += value * 7
            case ("D", false): days += value
            case ("H", true): seconds += value * 3600
            case ("M", true): seconds += value * 60
            case ("S", true): seconds += value
            default: return nil
            }
            number = nil
            sawUnit = true
        }
        // More than a century is not an event length but a typo (and would overflow day arithmetic).
        guard sawUnit, number == nil, days <= 36_600, seconds <= 36_600 * 86_400 else { return nil }
        self.init(days: sign * days, seconds: sign * seconds)
    }

    /// Whether the duration is negative.
    public var isNegative: Bool { days < 0 || seconds < 0 }
}
