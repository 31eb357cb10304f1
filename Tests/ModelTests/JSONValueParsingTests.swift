import Foundation
import Model
import Testing

/// `JSONValue(parsing:)` against Foundation's `JSONDecoder` (through `JSONValue.init(from:)`),
/// which every body went through before: the same value for the same text, on texts chosen to
/// find where two JSON readers differ, and on every answer in the fuzz corpus (recorded from
/// the simulators and found by the fuzzer).
@Suite("JSON value parsing")
struct JSONValueParsingTests {
    /// What `JSONDecoder` reads, or nil where it refuses.
    static func decoded(_ text: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text))
    }

    /// Equal, numbers of equal kind included (`==` compares numbers by value only).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            x.fields.count == y.fields.count
                && zip(x.fields, y.fields).allSatisfy { $0.0 == $1.0 && same($0.1, $1.1) }
        default: a == b
        }
    }

    static let edgeTexts: [String] = [
        "2.0", "2", "1e2", "1E+2", "-0", "-0.0", "2.5", "1e400", "-1e400", "1e-400", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1.0e1", "0.1e1", "01", "-01",
        "-", "+1", ".5", "1.", "1.e1", "1e", "0x10", "123456789012345678901234567890", "4.9e-324",
        "1.7976931348623157e308",
        "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud83d\\ude00\"", "\"a\\u0000b\"", "\"\\u00e9\"",
        "\"\\uD834\\uDD1E\"", "\"\\x41\"", "\"\\'\"", "\"\\/\"", "\"\t\"", "\"\u{7f}\"", "\"é\"", "\"e\u{301}\"",
        "\u{FEFF}{}", " {} ", "{}x", "{} {}", "", " ", "nul", "nulll", "true false", "NaN", "Infinity", "[1 2]",
        "[", "]", "{", "}", "[1,,2]", "[,1]", "{\"a\" 1}", "{\"a\":}", "{a:1}", "{'a':1}", "{\"a\":1,\"a\":2}",
        "{\"e\u{301}\":1,\"\u{e9}\":2}", "{\"b\":[],\"a\":{}}", "[null,true,false,-1,1.5,\"x\",[],{}]",
        "\r\n\t[ 1 ,\t2 ]\r\n", "\"\\u00\"", "\"\\u00G0\"", "\"abc", "[\"a\",]x",
        // Found by the `json` fuzz target: a whole number written with a fraction is that Int exactly.
        "922323372036854580.0", "-922323372036854580.00", "9223372036854775807.0", "9223372036854775808.0",
        "-9223372036854775808.0", "1.5e3", "12345678901234567.8e1", "1.0000000000000001", "0e999999", "5e-1",
        "120e-1", "1.20e1",
    ]

    @Test(arguments: edgeTexts)
    func agreesWithJSONDecoder(_ text: String) {
        Self.compare(Array(text.utf8), text.debugDescription)
    }

    @Test func agreesWithJSONDecoderOnEveryCorpusAnswer() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/answers")
        let walk = try #require(FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil))
        var compared = 0
        for case let file as URL in walk where file.pathExtension != "md" {
            guard let bytes = try? [UInt8](Data(contentsOf: file)) else { continue }
            Self.compare(bytes, file.lastPathComponent)
            compared += 1
        }
        #expect(compared > 40)
    }

    /// Invalid UTF-8 and raw bytes: both refuse.
    @Test func bytesThatAreNotUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0xFF], [0],
            // A cut-off sequence that decoding repairs with one character of the same length.
            [0x22, 0xF1, 0x80, 0x80, 0x22],
            [0x22] + Array("a longer string than a small one".utf8) + [0xF1, 0x80, 0x80, 0x22],
        ] {
            Self.compare(bytes, "\(bytes)")
        }
    }

    /// A trailing comma is not JSON; `JSONDecoder` takes it, the parser does not.
    @Test func aTrailingCommaIsRefused() {
        for text in ["[1,]", "{\"a\":1,}", "[1 , ]"] {
            #expect(Self.decoded(Array(text.utf8)) != nil, "JSONDecoder takes \(text)")
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(text.utf8)) }
        }
    }

    /// JSON between systems is UTF-8 (RFC 8259); `JSONDecoder` also reads UTF-16 and UTF-32,
    /// which it detects from NUL bytes (`00 30` is UTF-16 "0": found by the `json` fuzz target).
    @Test func textInUTF16IsRefused() {
        for bytes: [UInt8] in [[0x00, 0x30], [0x30, 0x00], [0xFE, 0xFF, 0x00, 0x30]] {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: bytes) }
        }
        #expect(Self.decoded([0x00, 0x30]) == .int(0), "JSONDecoder reads it as UTF-16")
    }

    @Test func nestingUpToTheLimitAndNoFurther() throws {
        let limit = JSONValue.maximumParseDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        _ = try JSONValue(parsing: Array(deepest.utf8))
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(tooDeep.utf8)) }
        let unclosed = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(unclosed.utf8)) }
    }

    static func compare(_ bytes: [UInt8], _ name: String) {
        let reference = decoded(bytes)
        let parsed = try? JSONValue(parsing: bytes)
        switch (reference, parsed) {
        case (nil, nil): break
        case (let reference?, let parsed?):
            #expect(same(reference, parsed), "\(name): JSONDecoder \(reference), parser \(parsed)")
        case (nil, let parsed?):
            Issue.record("\(name): JSONDecoder refuses, the parser reads \(parsed)")
        case (let reference?, nil):
            Issue.record("\(name): JSONDecoder reads \(reference), the parser refuses")
        }
    }
}
