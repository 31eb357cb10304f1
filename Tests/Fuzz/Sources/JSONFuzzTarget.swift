import Foundation
import Model

/// Any bytes as a JSON body: `JSONValue(parsing:)`, which reads every backend answer and
/// request body, against Foundation's `JSONDecoder`, which read them before. Both take the
/// same texts and give the same value; the one known difference is a trailing comma (not
/// JSON), which only `JSONDecoder` takes. Every value the parser gives writes back to text
/// that parses to the same value.
enum JSONFuzzTarget {
    static let target = FuzzTarget(
        name: "json",
        run: { bytes in
            let parsed: JSONValue?
            var failure: JSONParseError?
            do throws(JSONParseError) { parsed = try JSONValue(parsing: bytes) } catch {
                parsed = nil
                failure = error
            }
            // JSONDecoder's cost is quadratic in the nesting; past a few hundred levels the
            // comparison would only measure that.
            let reference = bytes.count < 20_000 ? try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) : nil
            switch (parsed, reference) {
            case (let parsed?, let reference?):
                invariant(parsed == reference, "parser \(parsed) but JSONDecoder \(reference)", target: "json")
            case (let parsed?, nil):
                invariant(bytes.count >= 20_000, "the parser reads \(parsed), JSONDecoder refuses", target: "json")
            case (nil, _?):
                invariant(
                    failure.map { trailingComma(bytes, at: $0.offset) } ?? false,
                    "JSONDecoder reads it, the parser refuses: \(failure.map(String.init(describing:)) ?? "")",
                    target: "json")
            case (nil, nil):
                break
            }
            if let parsed {
                let again = try? JSONValue(parsing: Array(parsed.serialized.utf8))
                invariant(again == parsed, "\(parsed) does not survive writing and reading", target: "json")
            }
        })

    /// Whether the parser stopped at a `]` or `}` right after a comma.
    static func trailingComma(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "]") || bytes[offset] == UInt8(ascii: "}") else {
            return false
        }
        let before = bytes[..<offset].last { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return before == UInt8(ascii: ",")
    }
}
