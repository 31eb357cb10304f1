import Foundation
import NIOCore

/// A JSON value with ordered object keys.
///
/// Simulators must reproduce the real servers' bytes closely (FastAPI keeps the schema's field
/// order and writes compact JSON), which `JSONEncoder` does not promise on Linux. Decoding goes
/// through `JSONDecoder`; encoding writes the structure in order and lets `JSONEncoder` escape any
/// string that needs it.
enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            let dict = try c.decode([String: JSONValue].self)
            // Key order is lost by JSONDecoder; sort for determinism.
            self = .object(JSONObject(fields: dict.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        }
    }

    /// Parses a complete JSON document; nil when it is not valid JSON.
    static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var isNull: Bool { self == .null }

    /// Compact JSON text (`separators=(",", ":")`, non-ASCII kept as UTF-8, like FastAPI).
    var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    var bytes: ByteBuffer { ByteBuffer(string: serialized) }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONValue.formatDouble(d)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, field) in o.fields.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(field.0, to: &out)
                out += ":"
                field.1.write(to: &out)
            }
            out += "}"
        }
    }

    /// Python's `repr(float)` style: integral values keep a `.0`.
    static func formatDouble(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e16 { return "\(Int(d)).0" }
        return "\(d)"
    }

    private static func writeString(_ s: String, to out: inout String) {
        let needsEscaping = s.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        if !needsEscaping {
            out += "\""
            out += s
            out += "\""
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        if let data = try? encoder.encode(s) {
            out += String(decoding: data, as: UTF8.self)
        } else {
            out += "\"\""
        }
    }
}

/// An ordered JSON object; a dictionary literal keeps its order.
struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    var fields: [(String, JSONValue)]

    init(fields: [(String, JSONValue)]) { self.fields = fields }

    init(dictionaryLiteral elements: (String, JSONValue)...) { self.fields = elements }

    /// The last value for `key` (Python's dict keeps the last duplicate).
    subscript(key: String) -> JSONValue? {
        fields.last { $0.0 == key }?.1
    }

    func has(_ key: String) -> Bool { fields.contains { $0.0 == key } }

    mutating func append(_ key: String, _ value: JSONValue) { fields.append((key, value)) }

    static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}
