import Foundation
import Model

/// One upstream JSON object read leniently: keys match whether snake_case or camelCase
/// (`start_time`, `startTime`), unknown keys are ignored, numbers and strings convert where
/// a person would expect.
public struct LenientFields: Sendable {
    /// The object's fields as sent; a key is found by comparing folded forms (``fold``), the
    /// last field of a folded key winning, as a dictionary of folded keys would have it.
    private let fields: [(String, JSONValue)]
    /// Each field's ``foldHash``, made once: a lookup compares these before any key.
    private let hashes: [UInt64]

    public init?(_ value: JSONValue) {
        guard let object = value.objectValue else { return nil }
        fields = object.fields
        hashes = fields.map { Self.foldHash($0.0) }
    }

    /// The value of the last field whose key folds to `name`'s fold. Every field of every
    /// upstream object is looked up here: the comparison folds as it goes and allocates nothing.
    private subscript(name: String) -> JSONValue? {
        let hash = Self.foldHash(name)
        for index in fields.indices.reversed() {
            let other = hashes[index]
            guard other == hash || other == Self.notASCII || hash == Self.notASCII else { continue }
            if Self.foldedEqual(fields[index].0, name) { return fields[index].1 }
        }
        return nil
    }

    /// What ``foldHash`` gives a key with a byte outside ASCII: such keys are compared by their
    /// folds (which compare canonically equal text as equal), so their hash says nothing.
    static let notASCII: UInt64 = 0

    /// An FNV-1a hash of the bytes of `key` that ``foldedEqual`` compares (ASCII lowercased,
    /// `_` and `-` skipped): keys that fold to the same key have the same hash, so a different
    /// hash rules a field out without comparing.
    static func foldHash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "_"), UInt8(ascii: "-"): continue
            case 0x80...: return notASCII
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): hash = (hash ^ UInt64(byte + 32)) &* 0x100_0000_01b3
            default: hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        return hash == notASCII ? 1 : hash
    }

    /// Whether `a` and `b` fold (``fold``) to the same key. Every field of every upstream object
    /// is compared here, so ASCII (all keys in practice) is folded byte by byte as it goes,
    /// allocating nothing: Foundation's `lowercased` and `replacingOccurrences` made the fold a
    /// fifth of a cold plan's CPU. Other text is compared by its folds.
    static func foldedEqual(_ a: String, _ b: String) -> Bool {
        // Native strings (every key parsed and every literal name) in place, byte by byte.
        let inPlace = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in foldedEqual(left, right) }
        }
        switch inPlace {
        case .some(.some(.some(let equal))): return equal
        case .some(.some(.none)): return fold(a) == fold(b)
        default: break
        }
        /// The next byte that counts, lowercased (ASCII); `_` and `-` are skipped.
        func next(_ bytes: inout String.UTF8View.Iterator) -> UInt8? {
            while let byte = bytes.next() {
                switch byte {
                case UInt8(ascii: "_"), UInt8(ascii: "-"): continue
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte + 32
                default: return byte
                }
            }
            return nil
        }
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            let x = next(&left)
            let y = next(&right)
            guard let x, let y else { return x == nil && y == nil }
            if x >= 0x80 || y >= 0x80 { return fold(a) == fold(b) }
            if x != y { return false }
        }
    }

    /// ``foldedEqual(_:_:)`` of two ASCII keys' bytes; nil when either has a byte outside ASCII
    /// (compared by their folds then).
    private static func foldedEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        var i = 0
        var j = 0
        while true {
            while i < a.count, a[i] == UInt8(ascii: "_") || a[i] == UInt8(ascii: "-") { i += 1 }
            while j < b.count, b[j] == UInt8(ascii: "_") || b[j] == UInt8(ascii: "-") { j += 1 }
            guard i < a.count, j < b.count else { return i == a.count && j == b.count }
            var x = a[i]
            var y = b[j]
            if x >= 0x80 || y >= 0x80 { return nil }
            if x >= UInt8(ascii: "A") && x <= UInt8(ascii: "Z") { x += 32 }
            if y >= UInt8(ascii: "A") && y <= UInt8(ascii: "Z") { y += 32 }
            if x != y { return false }
            i += 1
            j += 1
        }
    }

    /// `key` lowercased without `_` and `-`: the form in which two keys are the same key.
    static func fold(_ key: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: key.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
        return String(scalars)
    }

    /// The first of `names` present and not null.
    public func value(_ names: String...) -> JSONValue? {
        for name in names {
            if let value = self[name], value != .null { return value }
        }
        return nil
    }

    public func string(_ names: String...) -> String? {
        for name in names {
            switch self[name] {
            case .string(let text): return text
            case .int(let number): return String(number)
            case .double(let number):
                return number.rounded() == number && abs(number) < 9e15 ? String(Int64(number)) : String(number)
            default: continue
            }
        }
        return nil
    }

    public func bool(_ names: String...) -> Bool? {
        for name in names {
            switch self[name] {
            case .bool(let flag): return flag
            case .int(let number): return number != 0
            case .double(let number): return number != 0
            case .string(let text) where ["true", "false", "1", "0"].contains(text.lowercased()):
                return text.lowercased() == "true" || text == "1"
            default: continue
            }
        }
        return nil
    }

    public func int(_ names: String...) -> Int? {
        for name in names {
            switch self[name] {
            case .int(let number): return number
            case .double(let number) where number.isFinite && abs(number) < 9e18: return Int(number)
            case .string(let text): if let number = Int(text) { return number }
            default: continue
            }
        }
        return nil
    }

    public func strings(_ names: String...) -> [String]? {
        for name in names {
            if case .array(let items) = self[name] {
                return items.compactMap(\.stringValue)
            }
        }
        return nil
    }
}

/// Lists arrive bare or wrapped: `[…]`, `{"data":[…]}`, `{"success":true,"data":{"items":[…]}}`.
public enum LenientList {
    public static func items(in value: JSONValue, keys: [String] = ["data", "items", "results"]) -> [JSONValue]? {
        if let array = value.arrayValue { return array }
        guard let fields = LenientFields(value) else { return nil }
        for key in keys {
            if let inner = fields.value(key), let found = items(in: inner, keys: keys) {
                return found
            }
        }
        return nil
    }
}
