import Foundation

extension JSONValue {
    /// Compact JSON text in the fields' own order, the way the FastAPI backends write it
    /// (`separators=(",", ":")`, non-ASCII kept as UTF-8, a whole `double` as `2.0` like Python's
    /// `repr(float)`). The simulators answer with it; the gateway encodes with ``JSONCoding``.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
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
    public static func formatDouble(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e16 { return "\(Int(d)).0" }
        return "\(d)"
    }

    /// `s` as a JSON string, as ``JSONCoding`` writes it (``JSONBytesEncoder``'s escaping,
    /// without building an encoder).
    public static func quoted(_ s: String) -> String {
        var out = ""
        writeString(s, to: &out)
        return out
    }

    private static func writeString(_ s: String, to out: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count + 2)
        JSONBytesNode.write(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}
