/// The ways one character can be written in text a server sends back: as itself, or escaped —
/// percent-encoded (`%2F`, `%2f`, the UTF-8 bytes of `é` as `%C3%A9`, `+` for a space),
/// JSON-escaped (`\/`, `\"`, `\u002F`, a surrogate pair), Python-escaped (`\x2f`) or as an
/// HTML character reference (`&#47;`, `&#x2F;`, `&amp;`). `SecretRedactor` reads a secret
/// through these, so an echo in any of them is found.
enum EscapeReading {
    /// Calls `body` with each character `text` may be read as at `position`, and how many
    /// scalars of `text` that reading takes.
    static func each(in text: [Unicode.Scalar], at position: Int, _ body: (Unicode.Scalar, Int) -> Void) {
        let first = text[position]
        body(first, 1)
        switch first {
        case "+":
            body(" ", 1)
        case "%":
            if let (scalar, length) = percent(in: text, at: position) { body(scalar, length) }
        case "\\":
            if let (scalar, length) = backslash(in: text, at: position) { body(scalar, length) }
        case "&":
            if let (scalar, length) = reference(in: text, at: position) { body(scalar, length) }
        default:
            break
        }
    }

    /// `%XX` (a UTF-8 sequence of them for a scalar beyond ASCII).
    static func percent(in text: [Unicode.Scalar], at position: Int) -> (Unicode.Scalar, Int)? {
        guard let lead = byte(in: text, at: position) else { return nil }
        let count: Int
        switch lead {
        case 0x00..<0x80: return (Unicode.Scalar(lead), 3)
        case 0xC2..<0xE0: count = 2
        case 0xE0..<0xF0: count = 3
        case 0xF0..<0xF5: count = 4
        default: return nil
        }
        var bytes = [lead]
        for index in 1..<count {
            guard let next = byte(in: text, at: position + 3 * index), next & 0xC0 == 0x80 else { return nil }
            bytes.append(next)
        }
        let decoded = String(decoding: bytes, as: UTF8.self).unicodeScalars
        guard decoded.count == 1, let scalar = decoded.first, scalar != "\u{FFFD}" else { return nil }
        return (scalar, 3 * count)
    }

    /// The byte of `%XX` at `position`.
    private static func byte(in text: [Unicode.Scalar], at position: Int) -> UInt8? {
        guard position + 2 < text.count, text[position] == "%" else { return nil }
        guard let high = hex(text[position + 1]), let low = hex(text[position + 2]) else { return nil }
        return UInt8(high << 4 | low)
    }

    /// `\/`, `\"`, `\\`, `\n` and the other JSON escapes, `\uXXXX` (a pair for a scalar beyond
    /// the BMP), `\xXX`.
    static func backslash(in text: [Unicode.Scalar], at position: Int) -> (Unicode.Scalar, Int)? {
        guard position + 1 < text.count else { return nil }
        switch text[position + 1] {
        case "\"", "\\", "/", "'": return (text[position + 1], 2)
        case "n": return ("\n", 2)
        case "t": return ("\t", 2)
        case "r": return ("\r", 2)
        case "b": return ("\u{08}", 2)
        case "f": return ("\u{0C}", 2)
        case "x":
            guard let value = number(in: text, from: position + 2, digits: 2, radix: 16) else { return nil }
            return Unicode.Scalar(value).map { ($0, 4) }
        case "u":
            guard let unit = number(in: text, from: position + 2, digits: 4, radix: 16) else { return nil }
            if (0xD800..<0xDC00).contains(unit) {
                guard position + 7 < text.count, text[position + 6] == "\\", text[position + 7] == "u",
                    let low = number(in: text, from: position + 8, digits: 4, radix: 16),
                    (0xDC00..<0xE000).contains(low)
                else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)).map { ($0, 12) }
            }
            return Unicode.Scalar(unit).map { ($0, 6) }
        default:
            return nil
        }
    }

    static let namedReferences: [String: Unicode.Scalar] = [
        "amp": "&", "quot": "\"", "apos": "'", "lt": "<", "gt": ">", "sol": "/", "colon": ":", "equals": "=",
        "quest": "?", "percnt": "%", "num": "#", "commat": "@",
    ]

    /// `&#47;`, `&#x2F;` or a named reference such as `&amp;`.
    static func reference(in text: [Unicode.Scalar], at position: Int) -> (Unicode.Scalar, Int)? {
        var end = position + 1
        while end < text.count, end - position <= 10, text[end] != ";" { end += 1 }
        guard end < text.count, text[end] == ";", end > position + 1 else { return nil }
        let name = String(String.UnicodeScalarView(text[(position + 1)..<end]))
        let length = end - position + 1
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { ($0, length) }
        }
        if name.hasPrefix("#") {
            return UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init).map { ($0, length) }
        }
        return namedReferences[name].map { ($0, length) }
    }

    private static func number(in text: [Unicode.Scalar], from start: Int, digits: Int, radix: UInt32) -> UInt32? {
        guard start + digits <= text.count else { return nil }
        var value: UInt32 = 0
        for scalar in text[start..<(start + digits)] {
            guard let digit = hex(scalar), digit < radix else { return nil }
            value = value * radix + digit
        }
        return value
    }

    private static func hex(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 48
        case "a"..."f": scalar.value - 87
        case "A"..."F": scalar.value - 55
        default: nil
        }
    }
}
