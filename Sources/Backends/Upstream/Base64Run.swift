import Foundation

/// A run of base64 characters in text (standard `+/` or URL-safe `-_` alphabet), decoded the
/// ways it might have been meant: from each of its first four characters (the run may begin
/// with a character that is not part of the encoding, the `20` of an echoed `Basic%20…`),
/// incomplete groups dropped. `SecretRedactor` looks for secrets in what comes out.
enum Base64Run {
    static func isAlphabet(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "-", "_": true
        default: false
        }
    }

    /// The run decoded from offsets 0 to 3, as UTF-8 text (invalid bytes replaced).
    static func decodings(of run: ArraySlice<Unicode.Scalar>) -> [String] {
        let digits = run.compactMap(value(of:))
        return (0..<min(4, digits.count)).map { offset in
            var bytes: [UInt8] = []
            var index = offset
            while index + 1 < digits.count {
                let group = digits[index..<min(index + 4, digits.count)]
                let values = Array(group) + Array(repeating: UInt8(0), count: 4 - group.count)
                let bits =
                    UInt32(values[0]) << 18 | UInt32(values[1]) << 12 | UInt32(values[2]) << 6 | UInt32(values[3])
                bytes.append(UInt8(bits >> 16 & 0xFF))
                if group.count > 2 { bytes.append(UInt8(bits >> 8 & 0xFF)) }
                if group.count > 3 { bytes.append(UInt8(bits & 0xFF)) }
                index += 4
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A character's six bits (`=` and anything else: nil).
    private static func value(of scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "A"..."Z": UInt8(scalar.value - 65)
        case "a"..."z": UInt8(scalar.value - 71)
        case "0"..."9": UInt8(scalar.value + 4)
        case "+", "-": 62
        case "/", "_": 63
        default: nil
        }
    }
}
