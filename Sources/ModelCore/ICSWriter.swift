import Foundation

// RFC 5545 text as producers write it: content lines ended by CRLF, folded after 75 octets (a
// CRLF and one space, never inside a UTF-8 sequence), TEXT values escaped. Text from a backend
// is untrusted: no line break or other control character of it ever reaches the output raw,
// so a title cannot end its line and start a property or a VEVENT of its own.

/// Builds an iCalendar object line by line.
public struct ICSWriter {
    public private(set) var text = ""

    public init() {}

    /// Appends one content line, folded, with its CRLF. Control characters in `content` (line
    /// breaks included; a tab is kept) are dropped: one call is always one content line.
    public mutating func line(_ content: String) {
        text += Self.fold(Self.withoutControls(content))
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

    /// RFC 5545 TEXT escaping: backslash, semicolon, comma and newline. Every line break —
    /// CRLF, LF, a lone CR, NEL, U+2028, U+2029 — becomes `\n`; other control characters
    /// (C0 but the tab, DEL, C1) are dropped, since TEXT may not hold them (§3.3.11).
    public static func escape(_ value: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        var afterCR = false
        for scalar in value.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n" where afterCR: continue  // the LF of a CRLF: its CR was the break
            case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}": out += "\\n"
            case _ where isControl(scalar): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `content` without control characters (a tab is kept).
    static func withoutControls(_ content: String) -> String {
        guard content.unicodeScalars.contains(where: isControl) else { return content }
        var out = ""
        out.unicodeScalars.append(contentsOf: content.unicodeScalars.filter { !isControl($0) })
        return out
    }

    /// A control character TEXT may not hold: C0 but the tab, DEL, C1 (RFC 5545 §3.1 CONTROL,
    /// and C1, which some readers take as a line break).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }
}
