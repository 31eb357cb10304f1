import Foundation

/// Why a text is not one JSON value (`JSONValue(parsing:)`): what is wrong and the byte offset
/// where it was found.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public let offset: Int

    public var description: String { "not JSON: \(message) at byte \(offset)" }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects a parse accepts, as Foundation's `JSONDecoder`.
    public static let maximumParseDepth = 512

    /// Parses one JSON document (RFC 8259; a leading UTF-8 byte order mark is skipped) in one
    /// pass, at a cost linear in its length whatever its shape.
    ///
    /// Every body the gateway reads as a whole value (backends' answers, error bodies, request
    /// bodies) comes through here rather than through `JSONDecoder` and `init(from:)`: that one
    /// has no way to ask what the next value is, so it tries each type in turn, and every failed
    /// try builds an error carrying the whole coding path. A backend answer nested 500 deep
    /// cost seconds of CPU that way (quadratic in the depth); here it costs microseconds.
    ///
    /// What it gives is what `JSONDecoder` gives (`JSONValueParsingTests` compares them): a
    /// number is `int` when its value is whole and fits an `Int` (`2.0` and `1e2` too), `double`
    /// otherwise; of a key given twice, the first value is kept (`StrictJSONScan` is where a
    /// reader refuses such a body); an object's keys are sorted. Unlike `JSONDecoder` it
    /// refuses a trailing comma and text in UTF-16 or UTF-32, neither of which RFC 8259 allows
    /// between systems.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        let parsed: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            var parser = JSONValueParser(bytes: buffer)
            return Result { () throws(JSONParseError) in try parser.document() }
        }
        if let parsed {
            self = try parsed.get()
        } else {
            self = try JSONValue(parsing: Array(bytes))
        }
    }
}

/// A recursive-descent JSON parser over bytes; the recursion is bounded by
/// `JSONValue.maximumParseDepth`.
struct JSONValueParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func document() throws(JSONParseError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        let value = try value()
        skipWhitespace()
        guard index == bytes.count else { throw failure("text after the value") }
        return value
    }

    private func failure(_ message: String) -> JSONParseError {
        JSONParseError(message: message, offset: index)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw failure("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw failure("no value starts with this character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw failure("an unknown word") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("an unknown word")
        }
        index += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONValue.maximumParseDepth else {
            throw failure("nested deeper than \(JSONValue.maximumParseDepth) levels")
        }
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw failure("an array is not closed") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(items)
            default: throw failure("expected , or ] in an array")
            }
        }
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var fields: [(String, JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject(fields: []))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a key in quotes")
            }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected :") }
            index += 1
            skipWhitespace()
            fields.append((key, try value()))
            skipWhitespace()
            guard index < bytes.count else { throw failure("an object is not closed") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(JSONObject(parsedFields: fields))
            default: throw failure("expected , or } in an object")
            }
        }
    }

    /// The string at `index` (its opening quote), escapes resolved.
    private mutating func string() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // The common case: no escapes; the bytes are taken as they are (once checked as UTF-8).
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try utf8(start..<index)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("a control character inside a string") }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try utf8(scalars)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try unicodeEscape()
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    index -= 1
                    throw failure("an unknown escape")
                }
            default:
                if byte < 0x20 { throw failure("a control character inside a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw failure("a string is not closed")
    }

    private func utf8(_ range: Range<Int>) throws(JSONParseError) -> String {
        try utf8(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    private func utf8(_ text: [UInt8]) throws(JSONParseError) -> String {
        let checked: String? = text.withUnsafeBufferPointer { Self.validatedUTF8($0) }
        guard let checked else { throw failure("a string is not valid UTF-8") }
        return checked
    }

    private func utf8(_ text: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> String {
        guard let checked = Self.validatedUTF8(text) else { throw failure("a string is not valid UTF-8") }
        return checked
    }

    /// `text` as a String when it is valid UTF-8, nil otherwise — what `String(validating:as:)`
    /// answers, without its generic path (a metadata lookup per string, a fifth of the parse):
    /// decoding repairs bad bytes, so the text is valid exactly when decoding left every byte
    /// as it was. (A `memcmp` of the decoded bytes costs more than this on the short strings
    /// of an answer.)
    static func validatedUTF8(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        let decoded = String(decoding: text, as: UTF8.self)
        if text.allSatisfy({ $0 < 0x80 }) { return decoded }
        return decoded.utf8.elementsEqual(text) ? decoded : nil
    }

    /// After `\u`: four hex digits, and for a high surrogate the `\u` of its low one.
    private mutating func unicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let first = try hexQuad()
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw failure("a high surrogate without its low one") }
            index += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("a high surrogate without its low one") }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else { throw failure("not a character") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("a low surrogate alone") }
        return scalar
    }

    private mutating func hexQuad() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259's number grammar; `int` when the value is whole and fits an `Int`.
    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number may not start with 0") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var integer = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integer = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a fraction needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integer = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("an exponent needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integer, let value = Int(text) { return .int(value) }
        // A fraction or exponent whose value is exactly a whole Int (`922323372036854580.0`,
        // `1.5e3`): that Int, as JSONDecoder gives it, not the nearest double (found by the
        // `json` fuzz target).
        if !integer, let value = Self.exactInteger(Array(text.utf8)) { return .int(value) }
        guard let value = Double(text), value.isFinite else {
            index = start
            throw failure("a number too large for a double")
        }
        if value.rounded() == value, value > -0x1p63, value < 0x1p63 { return .int(Int(value)) }
        return .double(value)
    }

    /// The value of a number literal (already checked against the grammar) when it is exactly
    /// a whole number that fits an `Int`; nil otherwise.
    static func exactInteger(_ text: [UInt8]) -> Int? {
        var position = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { position += 1 }
        var digits: [UInt8] = []
        var fractionLength = 0
        var inFraction = false
        while position < text.count {
            let byte = text[position]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                break
            } else {
                digits.append(byte - UInt8(ascii: "0"))
                if inFraction { fractionLength += 1 }
            }
            position += 1
        }
        var exponent = 0
        if position < text.count {
            position += 1
            var exponentNegative = false
            if text[position] == UInt8(ascii: "+") || text[position] == UInt8(ascii: "-") {
                exponentNegative = text[position] == UInt8(ascii: "-")
                position += 1
            }
            while position < text.count {
                exponent = min(exponent * 10 + Int(text[position] - UInt8(ascii: "0")), 1_000_000)
                position += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        while digits.first == 0 { digits.removeFirst() }
        if digits.isEmpty { return 0 }
        var scale = exponent - fractionLength
        while scale < 0, digits.last == 0 {
            digits.removeLast()
            scale += 1
        }
        guard scale >= 0, digits.count + scale <= 19 else { return nil }
        var value = 0
        for digit in digits + Array(repeating: 0, count: scale) {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            // Built as a negative number, so that Int.min fits.
            let (next, overflowAgain) = times.subtractingReportingOverflow(Int(digit))
            guard !overflow, !overflowAgain else { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
