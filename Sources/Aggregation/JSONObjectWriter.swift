import Foundation
import Model

/// Writes a JSON object from already-encoded values, keys sorted, so cached section bodies
/// are placed into an answer as they are stored instead of being decoded and encoded again.
/// Equal data gives equal bytes (ETags).
enum JSONObjectWriter {
    static func object(_ fields: [String: Data]) -> Data {
        var output = Data("{".utf8)
        var first = true
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(contentsOf: JSONValue.quoted(key).utf8)
            output.append(UInt8(ascii: ":"))
            output.append(value)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}
