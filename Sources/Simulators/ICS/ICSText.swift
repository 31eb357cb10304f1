import Foundation
import Model

// RFC 5545 text as producers write it: content lines ended by CRLF, folded after 75 octets (a
// CRLF and one space, never inside a UTF-8 sequence), TEXT values escaped.

/// Builds an iCalendar object line by line.
struct ICSWriter {
    private(set) var text = ""

    /// Appends one content line, folded, with its CRLF.
    mutating func line(_ content: String) {
        text += Self.fold(content)
    }

    /// Appends `NAME:value` with `value` escaped as TEXT.
    mutating func text(_ name: String, _ value: String) {
        line("\(name):\(Self.escape(value))")
    }

    /// Appends every line of `lines` (already in content-line form).
    mutating func lines(_ lines: [String]) {
        for l in lines { line(l) }
    }

    /// `line` split into chunks of at most 75 octets, every one after the first starting with a
    /// space, each ended by CRLF.
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 70 * 3 + 2)
        var start = 0
        var limit = 75
        while bytes.count - start > limit {
            var end = start + limit
            // Never split a multi-byte character: back off over continuation bytes.
            while end > start, bytes[end] & 0xc0 == 0x80 { end -= 1 }
            out += bytes[start..<end]
            out += [0x0d, 0x0a, 0x20]
            start = end
            limit = 74
        }
        out += bytes[start...]
        out += [0x0d, 0x0a]
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 5545 TEXT escaping: backslash, semicolon, comma and newline.
    static func escape(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n", "\r\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}

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
