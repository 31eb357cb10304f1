/// One pass over JSON text for what a decoder does not say: a key that appears twice in one
/// object (Foundation's `JSONDecoder` keeps one of them silently, so two readers of the same
/// body could see different values), nesting deeper than a bound, and — where the text is not
/// JSON — what is wrong and where (a decoder only says that it failed).
///
/// Keys are compared as Swift compares the decoded strings (escapes resolved: `"a"` and
/// `"\u0061"` are one key, and so are canonically equivalent spellings, which a decoded
/// dictionary would merge). The scan keeps no values, uses no recursion, and stops at the
/// first problem; its memory is the keys of the objects open at one time.
public enum StrictJSONScan {
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// `key` appears twice in the object at `path` (`""` for the outermost object;
        /// `items[2].meta` for one inside).
        case duplicateKey(key: String, path: String)
        /// Objects and arrays nested deeper than `limit`.
        case tooDeep(limit: Int)
        /// Not JSON: what is wrong, at `line` and `column` (both from 1; the column counts bytes).
        case syntax(message: String, line: Int, column: Int)

        public var description: String {
            switch self {
            case .duplicateKey(let key, let path):
                "the key \(Self.shown(key)) appears twice in \(path.isEmpty ? "the body" : "\"\(Self.shown(path, quoted: false))\""); a key may appear once in an object"
            case .tooDeep(let limit):
                "the body nests objects and arrays deeper than \(limit) levels"
            case .syntax(let message, let line, let column):
                "the body is not valid JSON: \(message) (line \(line), column \(column))"
            }
        }

        /// A key as JSON writes it (control characters escaped), at most 40 characters.
        static func shown(_ text: String, quoted: Bool = true) -> String {
            var escaped = ""
            for scalar in text.unicodeScalars.prefix(40) {
                switch scalar {
                case "\"": escaped += quoted ? "\\\"" : "\""
                case "\\": escaped += "\\\\"
                case _
                where scalar.value < 0x20 || scalar.properties.generalCategory == .control
                    || scalar.properties.generalCategory == .format:
                    escaped +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            if text.unicodeScalars.count > 40 { escaped += "…" }
            return quoted ? "\"\(escaped)\"" : escaped
        }
    }

    /// Deepest nesting a request body may have.
    public static let defaultMaximumDepth = 64

    /// The first problem of `bytes` as JSON, or nil when it is one JSON value with every key
    /// once per object.
    public static func problem<Bytes: Collection<UInt8>>(in bytes: Bytes, maximumDepth: Int = defaultMaximumDepth)
        -> Problem?
    {
        var scanner = Scanner(bytes: Array(bytes), maximumDepth: maximumDepth)
        do {
            try scanner.run()
            return nil
        } catch {
            return error
        }
    }

    private struct Frame {
        var isObject: Bool
        var keys: Set<String> = []
        var key = ""
        var index = 0
    }

    private enum Expect {
        case value, valueOrClose, keyOrClose, key, colon, commaOrClose
    }

    private struct Scanner {
        let bytes: [UInt8]
        let maximumDepth: Int
        var position = 0
        var stack: [Frame] = []
        var expect = Expect.value
        var done = false

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        mutating func run() throws(Problem) {
            while true {
                while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
                guard position < bytes.count else {
                    if done { return }
                    throw syntax(stack.isEmpty && expect == .value ? "there is no JSON value" : "the text ends early")
                }
                if done { throw syntax("there is more after the JSON value") }
                let byte = bytes[position]
                switch expect {
                case .value, .valueOrClose:
                    if expect == .valueOrClose, byte == UInt8(ascii: "]") {
                        position += 1
                        close()
                        continue
                    }
                    try value(byte)
                case .keyOrClose, .key:
                    if expect == .keyOrClose, byte == UInt8(ascii: "}") {
                        position += 1
                        close()
                        continue
                    }
                    guard byte == UInt8(ascii: "\"") else { throw syntax("a key in double quotes was expected") }
                    let key = try string(keeping: true)
                    var frame = stack.removeLast()
                    guard frame.keys.insert(key).inserted else {
                        throw .duplicateKey(key: key, path: path(stack))
                    }
                    frame.key = key
                    stack.append(frame)
                    expect = .colon
                case .colon:
                    guard byte == UInt8(ascii: ":") else { throw syntax("a colon after the key was expected") }
                    position += 1
                    expect = .value
                case .commaOrClose:
                    let isObject = stack[stack.count - 1].isObject
                    if byte == UInt8(ascii: ",") {
                        position += 1
                        if isObject {
                            expect = .key
                        } else {
                            stack[stack.count - 1].index += 1
                            expect = .value
                        }
                    } else if byte == UInt8(ascii: isObject ? "}" : "]") {
                        position += 1
                        close()
                    } else {
                        throw syntax(isObject ? "a comma or } was expected" : "a comma or ] was expected")
                    }
                }
            }
        }

        private mutating func value(_ byte: UInt8) throws(Problem) {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < maximumDepth else { throw .tooDeep(limit: maximumDepth) }
                position += 1
                let isObject = byte == UInt8(ascii: "{")
                stack.append(Frame(isObject: isObject))
                expect = isObject ? .keyOrClose : .valueOrClose
            case UInt8(ascii: "\""):
                _ = try string(keeping: false)
                ended()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
                ended()
            default:
                throw syntax("a value was expected, found \(Self.describe(byte))")
            }
        }

        private mutating func close() {
            stack.removeLast()
            ended()
        }

        private mutating func ended() {
            if stack.isEmpty { done = true } else { expect = .commaOrClose }
        }

        private mutating func literal(_ word: StaticString) throws(Problem) {
            let count = word.utf8CodeUnitCount
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            guard position + count <= bytes.count, bytes[position..<(position + count)].elementsEqual(expected) else {
                throw syntax("a value was expected, found \(Self.describe(bytes[position]))")
            }
            position += count
            ended()
        }

        private mutating func number() throws(Problem) {
            func digits() -> Int {
                let start = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    position += 1
                }
                return position - start
            }
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            let leadingZero = position < bytes.count && bytes[position] == UInt8(ascii: "0")
            let integer = digits()
            guard integer > 0 else { throw syntax("a number needs digits") }
            if leadingZero, integer > 1 { throw syntax("a number does not start with 0") }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { throw syntax("a number needs digits after its point") }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard digits() > 0 else { throw syntax("a number needs digits in its exponent") }
            }
        }

        /// Reads a string from its opening quote; returns its decoded text when `keeping`.
        private mutating func string(keeping: Bool) throws(Problem) -> String {
            position += 1
            var text = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() {
                if !run.isEmpty {
                    text.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                    run.removeAll(keepingCapacity: true)
                }
            }
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    flush()
                    return keeping ? String(text) : ""
                case UInt8(ascii: "\\"):
                    guard position + 1 < bytes.count else { throw syntax("the text ends inside a string") }
                    let escaped = bytes[position + 1]
                    let simple: Unicode.Scalar? =
                        switch escaped {
                        case UInt8(ascii: "\""): "\""
                        case UInt8(ascii: "\\"): "\\"
                        case UInt8(ascii: "/"): "/"
                        case UInt8(ascii: "b"): "\u{08}"
                        case UInt8(ascii: "f"): "\u{0C}"
                        case UInt8(ascii: "n"): "\n"
                        case UInt8(ascii: "r"): "\r"
                        case UInt8(ascii: "t"): "\t"
                        default: nil
                        }
                    if let simple {
                        if keeping {
                            flush()
                            text.append(simple)
                        }
                        position += 2
                    } else if escaped == UInt8(ascii: "u") {
                        let scalar = try unicodeEscape()
                        if keeping {
                            flush()
                            text.append(scalar)
                        }
                    } else {
                        throw syntax("\\\(Self.describe(escaped, bare: true)) is not an escape JSON knows")
                    }
                case 0x00..<0x20:
                    throw syntax(
                        "a control character (U+\(Self.hex(UInt32(byte)))) inside a string; write it escaped, e.g. \\u\(Self.hex(UInt32(byte)).lowercased())"
                    )
                default:
                    if keeping { run.append(byte) }
                    position += 1
                }
            }
            throw syntax("the text ends inside a string")
        }

        /// `\uXXXX` at `position` (a surrogate pair as one scalar; a lone surrogate is U+FFFD).
        private mutating func unicodeEscape() throws(Problem) -> Unicode.Scalar {
            guard let unit = hexUnit(at: position + 2) else { throw syntax("\\u needs four hex digits") }
            position += 6
            if (0xD800..<0xDC00).contains(unit), position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u"), let low = hexUnit(at: position + 2),
                (0xDC00..<0xE000).contains(low)
            {
                position += 6
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
            }
            return Unicode.Scalar(unit) ?? "\u{FFFD}"
        }

        private func hexUnit(at start: Int) -> UInt32? {
            guard start + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[start..<(start + 4)] {
                guard let digit = Self.hexDigit(byte) else { return nil }
                value = value << 4 | digit
            }
            return value
        }

        private static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte) - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte) - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte) - 55
            default: nil
            }
        }

        private static func hex(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }

        private static func describe(_ byte: UInt8, bare: Bool = false) -> String {
            if (0x21..<0x7F).contains(byte) {
                let character = String(UnicodeScalar(byte))
                return bare ? character : "\"\(character)\""
            }
            return "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }

        /// The path of the innermost open container, as `items[2].meta`.
        private func path(_ frames: [Frame]) -> String {
            var text = ""
            for frame in frames {
                if frame.isObject {
                    text += text.isEmpty ? frame.key : "." + frame.key
                } else {
                    text += "[\(frame.index)]"
                }
            }
            return text
        }

        private func syntax(_ message: String) -> Problem {
            var line = 1
            var column = 1
            for byte in bytes[..<min(position, bytes.count)] {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            return .syntax(message: message, line: line, column: column)
        }
    }
}
