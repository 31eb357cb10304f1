import Backends
import Foundation
import SeededRandom
import Testing

/// Query strings are strict: everything but RFC 3986's unreserved characters is escaped, the
/// same with the quick path for plain text as through Foundation.
@Suite("Query strings")
struct QueryStringTests {
    @Test(arguments: [
        "", "2026-11-29", "+01:00", "a+b", "a b", "Anna_list~1.x", "zoë", "%41", "a/b", "..", "日本", "x=y&z", "A|B",
    ])
    func escapesWhatIsNotUnreserved(text: String) {
        var unreserved = CharacterSet()
        unreserved.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        #expect(QueryString.escape(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved))
    }

    /// Generated texts of every kind of character: the same bytes as Foundation writes.
    @Test func generatedTextsAreEscapedAsFoundationEscapesThem() {
        var unreserved = CharacterSet()
        unreserved.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var rng = SplitMix64(seed: 0x9E5C_A9E)
        let pieces = [
            "a", "Z", "0", "-", ".", "_", "~", " ", "+", "%", "/", ":", "?", "#", "&", "=", "\u{7F}", "\u{0}",
            "é", "ß", "日", "🙂", "\u{301}", "\"", "'", "\n",
        ]
        for _ in 0..<2_000 {
            let text = (0..<rng.int(0...12)).map { _ in rng.pick(pieces) }.joined()
            #expect(
                QueryString.escape(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved), "\(text)")
        }
    }

    @Test func encodesNamesAndValuesAndLeavesOutMissingOnes() {
        #expect(
            QueryString.encode([("from", "2026-11-29T00:00:00+01:00"), ("q", nil), ("tag", "a b")])
                == "from=2026-11-29T00%3A00%3A00%2B01%3A00&tag=a%20b")
    }
}
