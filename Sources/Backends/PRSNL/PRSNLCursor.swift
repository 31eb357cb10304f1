import Model

/// PRSNL's timeline cursor as daygate gives it out and takes it back. PRSNL's `next_cursor` is
/// Python's `isoformat()` of a UTC time (`2026-11-23T10:00:00.123456+00:00`), and its `cursor`
/// parameter takes `Z` as well. A `+` pasted unencoded into a URL (a Home Assistant template,
/// curl) arrives as a space, so daygate gives the cursor out with `Z`, and reads a space before
/// the offset back as the `+` it was. Pure: tested without sockets.
enum PRSNLCursor {
    /// The upstream cursor as daygate answers it: a UTC time with `Z`, every digit kept.
    static func givenOut(_ upstream: String) -> String {
        for suffix in ["+00:00", "+0000"] where upstream.hasSuffix(suffix) {
            return String(upstream.dropLast(suffix.count)) + "Z"
        }
        return upstream
    }

    /// A cursor from a request, as PRSNL takes it: a space before a two-digit offset is the
    /// `+` a pasted URL lost. Nil when it is not one of PRSNL's timestamps.
    static func taken(_ text: String) -> String? {
        guard text.count <= 64 else { return nil }
        var cursor = text
        if let space = cursor.lastIndex(of: " "), cursor.distance(from: space, to: cursor.endIndex) == 6 {
            cursor.replaceSubrange(space...space, with: "+")
        }
        guard micros(cursor) != nil else { return nil }
        return cursor
    }

    /// The cursor that makes a timeline page start with the item created at `createdAt`
    /// (PRSNL's filter is `created_at < cursor`): one microsecond later, as `…Z`.
    static func justAfter(_ createdAt: String) -> String? {
        micros(createdAt).map { Civil.isoString($0 + 1) + "Z" }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.f…]` with `Z` or `±HH:MM` (or none: UTC, as PRSNL reads it), as
    /// microseconds since 1970 UTC; digits past the sixth of a fraction are dropped.
    static func micros(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 19, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":"),
            b[16] == UInt8(ascii: ":"),
            let year = Civil.digits(b, 0, 4), let month = Civil.digits(b, 5, 2), let day = Civil.digits(b, 8, 2),
            let hour = Civil.digits(b, 11, 2), let minute = Civil.digits(b, 14, 2),
            let second = Civil.digits(b, 17, 2),
            year >= 1, (1...12).contains(month), day >= 1, day <= Civil.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var micro = 0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 100_000
            let start = index
            while index < b.count, let digit = Civil.digits(b, index, 1) {
                micro += digit * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index < b.count {
            if b[index] == UInt8(ascii: "Z") {
                index += 1
            } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), index + 6 == b.count,
                b[index + 3] == UInt8(ascii: ":"), let h = Civil.digits(b, index + 1, 2),
                let m = Civil.digits(b, index + 4, 2), h < 24, m < 60
            {
                offset = (h * 60 + m) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
                index += 6
            } else {
                return nil
            }
        }
        guard index == b.count else { return nil }
        return Civil.micros(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, micro: micro)
            - Int64(offset) * 60 * Civil.microsPerSecond
    }
}
