import Foundation

/// Writes an `Encodable` value as JSON bytes — the bytes Foundation's `JSONEncoder` writes with
/// `[.sortedKeys, .withoutEscapingSlashes]` and its default strategies (``JSONCoding``), at a
/// fraction of its cost: every section body of a cold day goes through here.
///
/// Foundation's encoder casts each value to its special types (`Date`, `URL`, `Data`,
/// `Decimal`, dictionaries) on the way down and builds a tree of boxed values; here the
/// containers collect plain values (a keyed container's fields are sorted when written) and
/// only `URL`, `Data` and `Decimal` — told apart by their type, not by a cast — are handed to
/// Foundation's own encoder, so their spelling stays its own. Equality with `JSONEncoder` is
/// checked byte for byte in `JSONBytesEncoderTests` (hand-picked and generated values).
public enum JSONBytesEncoder {
    public static func encode(_ value: some Encodable) throws -> Data {
        let root = try JSONBytesSlot.encoding(value, at: nil)
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        try root.write(to: &out, at: [])
        return Data(out)
    }
}

// MARK: - The tree

/// One value as the containers collected it.
enum JSONBytesNode {
    case null
    case bool(Bool)
    case integer(String)
    case double(Double)
    case float(Float)
    case string(String)
    /// Bytes Foundation's encoder wrote (a URL, Data, Decimal).
    case raw([UInt8])
    case object(JSONBytesObject)
    case array(JSONBytesArray)
    /// An encoder handed out by `superEncoder`, read when written.
    case encoder(JSONBytesEncoding)
}

final class JSONBytesObject {
    var fields: [(key: String, value: JSONBytesNode)] = []
}

final class JSONBytesArray {
    var items: [JSONBytesNode] = []
}

/// Where a value sits: the step to it from its parent's place. The `codingPath` a container or
/// encoder shows is made from it only when asked (by an error, or a type that reads it), so a
/// nested value costs one small object instead of two arrays, and an array element's key (with
/// its "Index n" text) is made only then.
final class JSONBytesPath {
    enum Step {
        case key(any CodingKey)
        case index(Int)
    }

    let parent: JSONBytesPath?
    let step: Step

    init(_ parent: JSONBytesPath?, _ step: Step) {
        self.parent = parent
        self.step = step
    }

    /// The keys from the root to `path` (none for the root).
    static func codingPath(_ path: JSONBytesPath?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var place = path
        while let current = place {
            switch current.step {
            case .key(let key): keys.append(key)
            case .index(let index): keys.append(JSONBytesKey(intValue: index))
            }
            place = current.parent
        }
        return keys.reversed()
    }
}

/// The value encoded at one place.
enum JSONBytesSlot {
    static func encoding<T: Encodable>(_ value: T, at path: JSONBytesPath?) throws -> JSONBytesNode {
        if T.self == URL.self || T.self == Data.self || T.self == Decimal.self || T.self == NSDecimalNumber.self {
            return .raw(try Array(JSONCoding.encoder.encode(value)))
        }
        let encoder = JSONBytesEncoding(path: path)
        try value.encode(to: encoder)
        return encoder.node ?? .object(JSONBytesObject())
    }

}

// MARK: - The encoder and its containers

final class JSONBytesEncoding: Encoder {
    let path: JSONBytesPath?
    var codingPath: [any CodingKey] { JSONBytesPath.codingPath(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node: JSONBytesNode?

    init(path: JSONBytesPath?) {
        self.path = path
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: JSONBytesObject
        if case .object(let existing)? = node {
            object = existing
        } else {
            object = JSONBytesObject()
            node = .object(object)
        }
        return KeyedEncodingContainer(JSONBytesKeyedContainer<Key>(object: object, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: JSONBytesArray
        if case .array(let existing)? = node {
            array = existing
        } else {
            array = JSONBytesArray()
            node = .array(array)
        }
        return JSONBytesUnkeyedContainer(array: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONBytesSingleValueContainer(encoder: self)
    }
}

struct JSONBytesKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: JSONBytesObject
    let path: JSONBytesPath?
    var codingPath: [any CodingKey] { JSONBytesPath.codingPath(path) }

    private func put(_ value: JSONBytesNode, _ key: Key) {
        object.fields.append((key.stringValue, value))
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.float(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.integer(String(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.integer(String(value)), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(try JSONBytesSlot.encoding(value, at: JSONBytesPath(path, .key(key))), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = JSONBytesObject()
        put(.object(nested), key)
        return KeyedEncodingContainer(
            JSONBytesKeyedContainer<NestedKey>(object: nested, path: JSONBytesPath(path, .key(key))))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONBytesArray()
        put(.array(nested), key)
        return JSONBytesUnkeyedContainer(array: nested, path: JSONBytesPath(path, .key(key)))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: JSONBytesKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let encoder = JSONBytesEncoding(path: JSONBytesPath(path, .key(key)))
        object.fields.append((key.stringValue, .encoder(encoder)))
        return encoder
    }
}

/// The scalar `encode` methods the unkeyed and the single-value containers share: each puts
/// one value where the container keeps it.
protocol JSONBytesScalarSink {
    func put(_ value: JSONBytesNode)
}

extension JSONBytesScalarSink {
    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(.double(value)) }
    mutating func encode(_ value: Float) throws { put(.float(value)) }
    mutating func encode(_ value: Int) throws { put(.integer(String(value))) }
    mutating func encode(_ value: Int8) throws { put(.integer(String(value))) }
    mutating func encode(_ value: Int16) throws { put(.integer(String(value))) }
    mutating func encode(_ value: Int32) throws { put(.integer(String(value))) }
    mutating func encode(_ value: Int64) throws { put(.integer(String(value))) }
    mutating func encode(_ value: UInt) throws { put(.integer(String(value))) }
    mutating func encode(_ value: UInt8) throws { put(.integer(String(value))) }
    mutating func encode(_ value: UInt16) throws { put(.integer(String(value))) }
    mutating func encode(_ value: UInt32) throws { put(.integer(String(value))) }
    mutating func encode(_ value: UInt64) throws { put(.integer(String(value))) }
}

struct JSONBytesUnkeyedContainer: UnkeyedEncodingContainer, JSONBytesScalarSink {
    let array: JSONBytesArray
    let path: JSONBytesPath?
    var codingPath: [any CodingKey] { JSONBytesPath.codingPath(path) }
    var count: Int { array.items.count }

    func put(_ value: JSONBytesNode) { array.items.append(value) }
    /// The place of the next element.
    private var next: JSONBytesPath { JSONBytesPath(path, .index(array.items.count)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        put(try JSONBytesSlot.encoding(value, at: next))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = JSONBytesObject()
        let place = next
        put(.object(nested))
        return KeyedEncodingContainer(JSONBytesKeyedContainer<NestedKey>(object: nested, path: place))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONBytesArray()
        let place = next
        put(.array(nested))
        return JSONBytesUnkeyedContainer(array: nested, path: place)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONBytesEncoding(path: next)
        put(.encoder(encoder))
        return encoder
    }
}

struct JSONBytesSingleValueContainer: SingleValueEncodingContainer, JSONBytesScalarSink {
    let encoder: JSONBytesEncoding
    var codingPath: [any CodingKey] { encoder.codingPath }

    func put(_ value: JSONBytesNode) { encoder.node = value }

    mutating func encode<T: Encodable>(_ value: T) throws {
        put(try JSONBytesSlot.encoding(value, at: encoder.path))
    }
}

struct JSONBytesKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

// MARK: - Writing

extension JSONBytesNode {
    func write(to out: inout [UInt8], at path: [any CodingKey]) throws {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let digits): out.append(contentsOf: digits.utf8)
        case .double(let number): try Self.write(number, description: number.description, to: &out, at: path)
        case .float(let number):
            try Self.write(Double(number), description: number.description, to: &out, at: path)
        case .string(let text): Self.write(text, to: &out)
        case .raw(let bytes): out.append(contentsOf: bytes)
        case .encoder(let encoder): try (encoder.node ?? .object(JSONBytesObject())).write(to: &out, at: path)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            for (index, item) in array.items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try item.write(to: &out, at: path)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for field in Self.sorted(object.fields) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.write(field.key, to: &out)
                out.append(UInt8(ascii: ":"))
                try field.value.write(to: &out, at: path)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The fields in the order of their keys' UTF-8 bytes, as `JSONEncoder` sorts them (not
    /// `String`'s `<`, which compares canonical forms: `e` + U+0301 sorts after `ä` there and
    /// before it here); of a key given twice, the last value. (Two keys that are canonically
    /// equal but spelled apart stay two fields here; `JSONEncoder` keeps one. No type of ours
    /// writes such keys.)
    static func sorted(_ fields: [(key: String, value: JSONBytesNode)]) -> [(key: String, value: JSONBytesNode)] {
        func before(_ a: String, _ b: String) -> Bool { utf8Precedes(a, b) }
        if fields.indices.dropFirst().allSatisfy({ before(fields[$0 - 1].key, fields[$0].key) }) { return fields }
        let order = fields.indices.sorted { a, b in
            before(fields[a].key, fields[b].key) || (!before(fields[b].key, fields[a].key) && a < b)
        }
        var result: [(key: String, value: JSONBytesNode)] = []
        result.reserveCapacity(fields.count)
        for index in order {
            if let last = result.last, !utf8Precedes(last.key, fields[index].key) {
                result[result.count - 1] = fields[index]
            } else {
                result.append(fields[index])
            }
        }
        return result
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s (compared in place for native strings).
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let compared = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right -> Bool in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
        return (compared ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// A number as `JSONEncoder` writes it: its shortest description, without a trailing
    /// `.0`; NaN and the infinities are refused, as its default strategy does.
    static func write(_ number: Double, description: String, to out: inout [UInt8], at path: [any CodingKey]) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number,
                EncodingError.Context(
                    codingPath: path, debugDescription: "Unable to encode \(number) directly in JSON."))
        }
        if description.hasSuffix(".0") {
            out.append(contentsOf: description.utf8.dropLast(2))
        } else {
            out.append(contentsOf: description.utf8)
        }
    }

    /// A string as `JSONEncoder` writes it without escaping slashes: quotes, backslashes and
    /// control characters escaped (the short forms where JSON has them), everything else as is.
    static func write(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain != true {
            for byte in text.utf8 { writeEscaped(byte, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20:
            out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        default: out.append(byte)
        }
    }
}
