import Foundation

// RFC 5545 text as producers write it: content lines ended by CRLF, folded after 75 octets (a
// CRLF and one space, never inside a UTF-8 sequence), TEXT values escaped.

/// Builds an iCalendar object line by line.
public struct ICSWriter {
    public private(set) var text = ""

    public init() {}

    /// Appends one content line, folded, with its CRLF.
    public mutating func line(_ content: String) {
        text += Self.fold(content)
    }

    /// Appends `NAME:value` with `value` escaped as TEXT.
    public mutating func text(_ name: String, _ value: String) {
        line("\(name):\(Self.escape(value))")
    }

    /// Appends every line of `lines` (already in content-line form).
    public mutating func lines(_ lines: [String]) {
        for l in lines { line(l) }
    }

    /// `line` split into chunks of at most 75 octets, every one after the first starting with a
    /// space, each ended by CRLF.
    public static func fold(_ line: String) -> String {
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
    public static func escape(_ value: String) -> String {
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
