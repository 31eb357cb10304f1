/// A JSON object that keeps its keys in order — a dictionary literal keeps its order, so a
/// simulator writes its fields in the order of the real server's schema.
///
/// A key given twice keeps both fields in ``fields`` (as a parser might meet them) and reads as
/// the last one, as Python's `dict` does. Equality and hashing ignore the order.
public struct JSONObject: Sendable, Hashable, Encodable, ExpressibleByDictionaryLiteral, Sequence {
    public var fields: [(String, JSONValue)]

    public init(fields: [(String, JSONValue)]) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.fields = elements }

    /// The fields of `dictionary` in the order of their keys.
    public init(_ dictionary: [String: JSONValue]) {
        fields = dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The fields of a parsed object as ``init(_:)`` would keep them from a dictionary filled
    /// with the first value of each key: in the order of their keys, the first of a repeated key
    /// kept — without hashing every key.
    init(parsedFields parsed: [(String, JSONValue)]) {
        var sorted = parsed
        if !parsed.indices.dropFirst().allSatisfy({ parsed[$0 - 1].0 < parsed[$0].0 }) {
            // Ties keep their order (the first of a repeated key first): the index decides.
            sorted = parsed.indices.sorted { a, b in
                parsed[a].0 != parsed[b].0 ? parsed[a].0 < parsed[b].0 : a < b
            }.map { parsed[$0] }
            var unique: [(String, JSONValue)] = []
            unique.reserveCapacity(sorted.count)
            for field in sorted where unique.last?.0 != field.0 { unique.append(field) }
            sorted = unique
        }
        fields = sorted
    }

    /// The last value for `key`; setting replaces every field of that name by one at the first
    /// one's place (or appends it), setting nil removes them.
    public subscript(key: String) -> JSONValue? {
        get { fields.last { $0.0 == key }?.1 }
        set {
            let first = fields.firstIndex { $0.0 == key }
            fields.removeAll { $0.0 == key }
            guard let newValue else { return }
            if let first {
                fields.insert((key, newValue), at: first)
            } else {
                fields.append((key, newValue))
            }
        }
    }

    public func has(_ key: String) -> Bool { fields.contains { $0.0 == key } }

    public mutating func append(_ key: String, _ value: JSONValue) { fields.append((key, value)) }

    /// Each key once, in the order of its first field.
    public var keys: [String] {
        var seen = Set<String>()
        return fields.compactMap { seen.insert($0.0).inserted ? $0.0 : nil }
    }

    /// The values of ``keys``, in that order.
    public var values: [JSONValue] { keys.map { self[$0]! } }

    public var count: Int { keys.count }

    public var isEmpty: Bool { fields.isEmpty }

    /// The object as a dictionary (the last value of a repeated key).
    public var dictionary: [String: JSONValue] {
        Dictionary(fields, uniquingKeysWith: { _, last in last })
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        keys.map { (key: $0, value: self[$0]!) }.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.dictionary == rhs.dictionary
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dictionary)
    }

    private struct FieldKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for (key, value) in self {
            try container.encode(value, forKey: FieldKey(stringValue: key))
        }
    }
}
