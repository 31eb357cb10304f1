// Test support: one seeded generator for the tests that make their own inputs (the HTTP fuzz
// cases, generated JSON values).

/// SplitMix64: tiny, fast, and the same sequence on every platform (no stdlib `random(in:)`,
/// whose algorithm is not promised to stay put).
public struct SplitMix64 {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<n (n > 0).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }
    /// True with probability percent/100.
    public mutating func percent(_ percent: Int) -> Bool { below(100) < percent }
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    /// Mostly small sizes, sometimes up to `max`.
    public mutating func size(max: Int) -> Int {
        switch below(10) {
        case 0..<6: int(0...64)
        case 6..<9: int(0...min(max, 4096))
        default: int(0...max)
        }
    }

    public mutating func string(_ alphabet: String, count: Int) -> String {
        let characters = Array(alphabet)
        return String((0..<count).map { _ in characters[below(characters.count)] })
    }
}
