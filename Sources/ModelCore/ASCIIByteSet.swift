/// A set of ASCII bytes, as a 128-bit map: whether a text is made only of them is one pass over
/// its UTF-8 with no allocation. Percent-encoding asks it first, so that the common text (dates,
/// names, numbers) skips Foundation's `addingPercentEncoding`, which builds a new string every
/// time — a cache key and an upstream query are escaped on every request.
public struct ASCIIByteSet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// The ASCII letters and digits, and the ASCII bytes of `others`; any other character of
    /// `others` is a programming error.
    public init(lettersDigitsAnd others: String) {
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { insert(byte) }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { insert(byte) }
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { insert(byte) }
        for byte in others.utf8 {
            precondition(byte < 0x80, "ASCIIByteSet holds ASCII only")
            insert(byte)
        }
    }

    private mutating func insert(_ byte: UInt8) {
        if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
    }

    public func contains(_ byte: UInt8) -> Bool {
        switch byte {
        case ..<64: low & (1 << UInt64(byte)) != 0
        case ..<128: high & (1 << UInt64(byte - 64)) != 0
        default: false
        }
    }

    /// Whether every byte of `text` is in the set (true for the empty text).
    public func containsAll(of text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable({ bytes in bytes.allSatisfy(contains) }) {
            return answer
        }
        return text.utf8.allSatisfy(contains)
    }
}
