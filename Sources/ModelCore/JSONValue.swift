import Foundation

/// Any JSON value — the one JSON type of the gateway and the simulators.
///
/// Cached section bodies, route arguments and upstream error details travel as this type so that
/// every layer can merge and re-encode them with the standard codecs; the simulators build their
/// answers with it and write them byte for byte as the real servers do (``serialized``).
///
/// Numbers keep whether they were integers (`int`) or not (`double`), because FastAPI backends
/// write `2.0` for a float field and `2` for an integer one; comparison is by value
/// (`.int(2) == .double(2)`), as JSON has only one number type. Objects keep their keys' order
/// (``JSONObject``); comparison ignores the order, as JSON objects are unordered.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A number: `int` when `value` is whole and exactly representable, `double` otherwise.
    public static func number(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) < 9.0e15 { return .int(Int(value)) }
        return .double(value)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            // The decoder does not keep the keys' order; sorted keys keep the value deterministic.
            self = .object(JSONObject(value))
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            if value.rounded() == value, abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .object(let value):
            try value.encode(to: encoder)
        }
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value of an `int` or a `double`.
    public var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var isNull: Bool { self == .null }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// Converts any `Encodable` into a JSON value (through the standard encoder).
    public init(encoding value: some Encodable) throws {
        let data = try JSONCoding.encoder.encode(value)
        self = try JSONValue(parsing: data)
    }

    /// Parses a complete JSON document; nil when it is not valid JSON.
    public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONValue(parsing: bytes)
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.int, .double), (.double, .int), (.double, .double): lhs.numberValue == rhs.numberValue
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(Double(value))
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }
}

/// The shared codecs: sorted keys so that equal data gives equal bytes (ETags, tests).
public enum JSONCoding {
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static var decoder: JSONDecoder { JSONDecoder() }

    /// `value` as ``encoder`` writes it, written by ``JSONBytesEncoder`` (the same bytes, faster).
    public static func encode(_ value: some Encodable) throws -> Data {
        try JSONBytesEncoder.encode(value)
    }
}
