import Foundation
import Model
import Testing

/// The gateway writes keys and argument values of its answers with `JSONValue.quoted`: the same
/// bytes as its encoder (`JSONCoding`), so an answer's bytes (and ETag) do not depend on which.
@Suite("JSON quoted strings")
struct JSONQuotedTests {
    static let texts: [String] =
        ["", "plain", "2026-11-27", "a/b", "quote \" and \\ backslash", "één 🎉", "\u{7F}", "\u{2028}\u{2029}"]
        + (0..<0x20).map { "x\(Character(Unicode.Scalar(UInt8($0))))y" }

    /// Compared with Foundation's `JSONEncoder` itself (with `JSONCoding`'s options), not with
    /// `JSONCoding.encode`, which writes strings with the same code as `quoted`.
    @Test(arguments: texts)
    func quotedIsTheEncodersString(text: String) throws {
        let expected = String(decoding: try JSONCoding.encoder.encode(text), as: UTF8.self)
        #expect(JSONValue.quoted(text) == expected)
        #expect(String(decoding: try JSONCoding.encode(text), as: UTF8.self) == expected)
    }
}
