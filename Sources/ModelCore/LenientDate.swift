import Foundation

/// Parses the datetimes backends send: `2026-11-23T09:00:00Z`, `…+01:00`, `…+0100`, or naive
/// `2026-11-23T09:00:00` (taken in `naiveZone`, UTC unless said otherwise), with 0 to 9
/// fractional digits, `T` or space between date and time, seconds optional.
public enum LenientDate {
    /// A client's time: ISO-8601 that says its offset (`Z` or `±hh:mm`); a naive time is
    /// ambiguous and refused.
    public static func parseWithOffset(_ text: String) -> Date? {
        guard let t = text.firstIndex(of: "T") else { return nil }
        let clock = text[text.index(after: t)...]
        guard clock.hasSuffix("Z") || clock.hasSuffix("z") || clock.contains("+") || clock.contains("-") else {
            return nil
        }
        return parse(text)
    }

    public static func parse(_ text: String, naiveZone: TimeZone = .gmt) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0

        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ char: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == char else { return false }
            index += 1
            return true
        }

        guard let year = number(4), expect(UInt8(ascii: "-")),
            let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2)
        else { return nil }
        guard index < bytes.count, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[index])
        else { return nil }
        index += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2) else { return nil }
        var second = 0
        var nanos = 0
        if expect(UInt8(ascii: ":")) {
            guard let value = number(2) else { return nil }
            second = value
            if expect(UInt8(ascii: ".")) || expect(UInt8(ascii: ",")) {
                var digits = 0
                var fraction = 0
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    if digits < 9 {
                        fraction = fraction * 10 + Int(bytes[index] - 48)
                        digits += 1
                    }
                    index += 1
                }
                guard digits > 0 else { return nil }
                for _ in digits..<9 { fraction *= 10 }
                nanos = fraction
            }
        }
        var offset: Int? = nil
        if index < bytes.count {
            let sign = bytes[index]
            if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
                index += 1
                offset = 0
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                index += 1
                guard let offsetHours = number(2) else { return nil }
                _ = expect(UInt8(ascii: ":"))
                let offsetMinutes = number(2) ?? 0
                let seconds = (offsetHours * 3600 + offsetMinutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
                // Foundation knows offsets up to 18 hours; a larger one is read as no offset.
                if abs(seconds) <= 18 * 3600 { offset = seconds }
            } else {
                return nil
            }
        }
        guard index == bytes.count, (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }

        // (`Calendar`'s gregorian calendar is Julian before October 1582: older times stay with it.)
        if let offset, year > 1582 {
            // A time that says its offset is plain arithmetic (every time of every upstream
            // answer comes through here; `Calendar` was a tenth of a cold day's CPU). As with
            // `Calendar`, second 60 rolls over, but not into another day, and a day the month
            // does not have is refused.
            guard day <= Civil.daysIn(month: month, year: year) else { return nil }
            let days = Civil.days(year: year, month: month, day: day)
            let local = days * 86_400 + hour * 3600 + minute * 60 + second
            guard Civil.floorDiv(local, 86_400) == days else { return nil }
            return Date(timeIntervalSince1970: Double(local - offset)).addingTimeInterval(Double(nanos) / 1_000_000_000)
        }

        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? naiveZone
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date.addingTimeInterval(Double(nanos) / 1_000_000_000)
    }

    /// Formats an instant as ISO-8601 with the offset of `zone`: `2026-11-23T09:00:00+01:00`
    /// (`Z` for UTC); fractional seconds only when there are some.
    public static func format(_ date: Date, in zone: TimeZone) -> String {
        // Civil arithmetic on the zone's offset: every time in every answer is written here, and
        // `Calendar` with `String(format:)` cost a twentieth of a cold day's CPU.
        let wholeSeconds = date.timeIntervalSince1970.rounded(.down)
        let offset = zone.secondsFromGMT(for: date)
        var text: [UInt8] = []
        text.reserveCapacity(40)
        Civil.appendISO((Int64(wholeSeconds) + Int64(offset)) * Civil.microsPerSecond, to: &text)
        let micros = Int(((date.timeIntervalSince1970 - wholeSeconds) * 1_000_000).rounded())
        if micros > 0, micros < 1_000_000 {
            text.append(UInt8(ascii: "."))
            Civil.appendPadded(micros, 6, to: &text)
        }
        if offset == 0 {
            text.append(UInt8(ascii: "Z"))
        } else {
            let magnitude = abs(offset)
            text.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            Civil.appendPadded(magnitude / 3600, 2, to: &text)
            text.append(UInt8(ascii: ":"))
            Civil.appendPadded(magnitude % 3600 / 60, 2, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
