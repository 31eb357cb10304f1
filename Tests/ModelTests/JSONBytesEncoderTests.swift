import Foundation
import Model
import SeededRandom
import Testing

/// `JSONBytesEncoder` writes the bytes Foundation's `JSONEncoder` writes with `JSONCoding`'s
/// options: compared byte for byte on hand-picked values, on generated ones, and on every
/// backend answer of the fuzz corpus read as a `JSONValue`.
@Suite("JSONBytesEncoder")
struct JSONBytesEncoderTests {
    static func foundation(_ value: some Encodable) throws -> String {
        String(decoding: try JSONCoding.encoder.encode(value), as: UTF8.self)
    }

    static func ours(_ value: some Encodable) throws -> String {
        String(decoding: try JSONBytesEncoder.encode(value), as: UTF8.self)
    }

    static func expectSame(_ value: some Encodable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (ours, theirs) = (try ours(value), try foundation(value))
        #expect(ours == theirs, sourceLocation: sourceLocation)
    }

    struct Plain: Encodable {
        var name = "Anna"
        var count = 3
        var ratio = 0.25
        var flag = true
        var missing: String? = nil
        var present: Int? = 7
        var list = [1, 2, 3]
        var nested = ["b": [1.5, 2], "a": [], "A": [-0.0]]
        var byDay = [10: "ten", 2: "two", 1: "one"]
        var when = Date(timeIntervalSinceReferenceDate: 12.5)
        var link = URL(string: "https://example.org/a b?x=1&y=/z")!
        var bytes = Data([0, 1, 2, 250, 255])
        var amount = Decimal(string: "12.340")!
        var small: Float = 0.1
        var tiny: Int8 = -128
        var huge = UInt64.max
        var lowest = Int64.min
    }

    /// A type that uses every kind of container, nested ones and super encoders.
    struct Containers: Encodable {
        enum Keys: String, CodingKey { case zeta, alpha, inner, list, parent, twice }
        enum InnerKeys: String, CodingKey { case y, x }

        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: Keys.self)
            try keyed.encode("z", forKey: .zeta)
            try keyed.encodeNil(forKey: .alpha)
            var inner = keyed.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            try inner.encode(2, forKey: .y)
            try inner.encode([true, false], forKey: .x)
            var list = keyed.nestedUnkeyedContainer(forKey: .list)
            try list.encode("a")
            try list.encodeNil()
            var deeper = list.nestedContainer(keyedBy: InnerKeys.self)
            try deeper.encode(1.0, forKey: .x)
            var innermost = list.nestedUnkeyedContainer()
            try innermost.encode(UInt8(9))
            try Plain().encode(to: list.superEncoder())
            try "parent".encode(to: keyed.superEncoder(forKey: .parent))
            try 1.encode(to: keyed.superEncoder())
            try keyed.encode(1, forKey: .twice)
            try keyed.encode(2, forKey: .twice)
        }
    }

    /// A value that writes where it sits: its encoder's `codingPath`.
    struct Where: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(Self.text(encoder.codingPath))
        }

        static func text(_ path: [any CodingKey]) -> String {
            path.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }.joined(separator: "/")
        }
    }

    /// `Where`s at every kind of place, and the containers' own `codingPath`s.
    struct Places: Encodable {
        enum Keys: String, CodingKey { case here, list, inner, parent, containers }

        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: Keys.self)
            try keyed.encode(Where(), forKey: .here)
            try keyed.encode([Where(), Where()], forKey: .list)
            try keyed.encode(["a": [Where()]], forKey: .inner)
            try Where().encode(to: keyed.superEncoder(forKey: .parent))
            var list = keyed.nestedUnkeyedContainer(forKey: .containers)
            try list.encode(Where.text(list.codingPath))
            var nested = list.nestedContainer(keyedBy: Keys.self)
            try nested.encode(Where.text(nested.codingPath), forKey: .here)
            try nested.encode(Where(), forKey: .list)
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encode(Where.text(deeper.codingPath))
            try deeper.encode(Where())
            try Where().encode(to: list.superEncoder())
        }
    }

    /// The coding path a value or container sees is its whole path from the root, at every
    /// depth (it is made only when asked). `JSONEncoder` agrees except inside a nested container
    /// (below an element of `containers`), where it leaves out the container's own steps
    /// (`list` instead of `containers/[1]/list`); no type of ours reads a coding path there.
    @Test func codingPathsAreWholePaths() throws {
        let expected =
            #"{"containers":["containers",{"here":"containers/[1]","list":"containers/[1]/list"},"#
            + #"["containers/[2]","containers/[2]/[1]"],"containers/[3]"],"here":"here","#
            + #""inner":{"a":["inner/a/[0]"]},"list":["list/[0]","list/[1]"],"parent":"parent"}"#
        #expect(try Self.ours(Places()) == expected)
        let inList = try Self.ours([Places(), Places()])
        #expect(inList.contains(#""[1]/containers/[2]/[1]""#) && inList.contains(#""[0]/inner/a/[0]""#))
    }

    @Test func handPickedValuesAreWrittenAsJSONEncoderWritesThem() throws {
        try Self.expectSame(Plain())
        try Self.expectSame(Containers())
        try Self.expectSame([
            "a10": 1, "a9": 1, "B": 1, "a": 1, "_x": 1, "Z": 1, "é": 1, "e": 1, "a_b": 1, "aB": 1, "ab": 1,
            "e\u{301}x": 1, "ä": 1, "😀": 1, "": 1,
        ])
        try Self.expectSame([
            1.0, 0.1, 1e20, 1e-7, -0.0, 123456789012.5, 1e16, 1e15 + 0.5, 3.0e300, Double(Float(0.1)),
            Double.leastNonzeroMagnitude,
            Double.greatestFiniteMagnitude, 2.0.squareRoot(), 100, 1e21, 1e22, 123e-20, 0.000001, 0.0000001,
        ])
        try Self.expectSame([Float(0.1), 1e20, 3.4e38, -1.5, 16_777_216, Float.leastNonzeroMagnitude])
        try Self.expectSame(
            [String((0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }), "\u{2028}\u{2029}/\\\"é😀\u{FEFF}", ""])
        try Self.expectSame(["nested": ["deeper": [[String: Int]()]]])
        try Self.expectSame([Int?.none, 1])
        try Self.expectSame("a single string")
        try Self.expectSame(42)
    }

    @Test func notANumberIsRefusedAsJSONEncoderRefusesIt() {
        #expect(throws: EncodingError.self) { try JSONBytesEncoder.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONBytesEncoder.encode(["x": Double.infinity]) }
        #expect(throws: EncodingError.self) { try JSONBytesEncoder.encode([Float.infinity]) }
    }

    /// A value of any shape, made from a seeded generator.
    indirect enum Generated: Encodable {
        case object([String: Generated])
        case array([Generated])
        case string(String)
        case double(Double)
        case int(Int)
        case bool(Bool)
        case null

        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            switch self {
            case .object(let fields): try single.encode(fields)
            case .array(let items): try single.encode(items)
            case .string(let text): try single.encode(text)
            case .double(let number): try single.encode(number)
            case .int(let number): try single.encode(number)
            case .bool(let flag): try single.encode(flag)
            case .null: try single.encodeNil()
            }
        }

        static func make(_ rng: inout SplitMix64, depth: Int = 0) -> Generated {
            switch rng.next() % (depth > 3 ? 5 : 7) {
            case 0: return .string(text(&rng))
            case 1:
                let bits = rng.next()
                let number = Double(bitPattern: bits)
                return .double(number.isFinite ? number : Double(Int64(bitPattern: bits)) / 1000)
            case 2: return .int(Int(bitPattern: UInt(rng.next())) >> Int(rng.next() % 64))
            case 3: return .bool(rng.next() % 2 == 0)
            case 4: return .null
            case 5:
                return .object(
                    Dictionary(
                        (0..<Int(rng.next() % 6)).map { _ in (text(&rng), make(&rng, depth: depth + 1)) },
                        uniquingKeysWith: { first, _ in first }))
            default: return .array((0..<Int(rng.next() % 6)).map { _ in make(&rng, depth: depth + 1) })
            }
        }

        static func text(_ rng: inout SplitMix64) -> String {
            let pools: [ClosedRange<UInt32>] = [0x00...0x7F, 0x20...0x7E, 0xA0...0x2FFF, 0x1F600...0x1F64F]
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(rng.next() % 12) {
                let pool = pools[Int(rng.next() % UInt64(pools.count))]
                let value = pool.lowerBound + UInt32(rng.next() % UInt64(pool.count))
                if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
            }
            return String(scalars)
        }
    }

    @Test func generatedValuesAreWrittenAsJSONEncoderWritesThem() throws {
        var rng = SplitMix64(seed: 20_261_127)
        for _ in 0..<3000 {
            let value = Generated.make(&rng)
            try Self.expectSame(value)
        }
    }

    /// Every backend answer of the fuzz corpus, read as a `JSONValue` and written again.
    @Test func everyCorpusAnswerIsWrittenAsJSONEncoderWritesIt() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fuzz/corpus/answers").standardized
        let files =
            FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        #expect(files.count > 50)
        for file in files {
            guard let value = try? JSONValue(parsing: Data(contentsOf: file)) else { continue }
            #expect(try Self.ours(value) == Self.foundation(value), "\(file.lastPathComponent)")
        }
    }
}
