import Foundation
import Model
import Testing

@testable import Aggregation

/// A merged list is written by the gateway's own JSON writer, not Foundation's encoder: for
/// bodies the gateway encoded (``JSONCoding``), the bytes are the same as Foundation would write.
@Suite("Merged list encoding")
struct MergedListEncodingTests {
    struct Item: Encodable {
        var start: String
        var title: String
        var place: String?
        var ratio: Double
        var count: Int
        var tags: [String]
        var nested: [String: Double]
        var missing: String?

        enum CodingKeys: String, CodingKey {
            case start, title
            case place = "where"
            case ratio, count, tags, nested, missing
        }
    }

    @Test func theMergedBytesAreFoundationsBytes() throws {
        let first = [
            Item(
                start: "2026-11-27T10:00:00+01:00", title: "Quote \" back\\slash / slash\ttab\nline \u{1} ctl",
                place: "Zaal één — 🎉", ratio: 0.1, count: -3, tags: ["a", "ü"], nested: ["b": 2.5, "a": 1e20],
                missing: nil),
            Item(
                start: "2026-11-27T08:00:00+01:00", title: "\u{2028}line separator", place: nil, ratio: 1e-5,
                count: 0, tags: [], nested: [:], missing: nil),
        ]
        let second = [
            Item(
                start: "2026-11-27T09:00:00+01:00", title: "Second", place: "x", ratio: 123_456.789, count: 1 << 40,
                tags: ["z"], nested: ["c": -0.5], missing: nil)
        ]
        let merged = Aggregator.mergedList([try JSONCoding.encode(first), nil, try JSONCoding.encode(second)])
        // Foundation's own encoder (`JSONCoding.encoder`) is the reference, not
        // `JSONCoding.encode` (now `JSONBytesEncoder`, itself checked against it).
        let expected = try JSONCoding.encoder.encode([first[1], second[0], first[0]])
        #expect(String(decoding: merged, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }
}
