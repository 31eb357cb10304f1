import Backends
import Foundation
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

    @Test func encodesNamesAndValuesAndLeavesOutMissingOnes() {
        #expect(
            QueryString.encode([("from", "2026-11-29T00:00:00+01:00"), ("q", nil), ("tag", "a b")])
                == "from=2026-11-29T00%3A00%3A00%2B01%3A00&tag=a%20b")
    }
}
