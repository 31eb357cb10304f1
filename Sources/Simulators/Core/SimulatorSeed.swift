import Foundation

// Deterministic randomness for seeded data: every simulator derives its seeded ids, timestamps
// and noise from a seed string, so a restart (or another process) gives the same data.

/// A small deterministic generator (FNV-1a seed, SplitMix64 steps): the same seed string gives
/// the same sequence in every process, unlike `Hasher`.
struct SeedRandom {
    private var state: UInt64

    init(seed: String) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in seed.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        state = h
    }

    mutating func next() -> UInt64 {
        state = state &+ 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// `count` bytes: the big-endian bytes of as many ``next()`` values as needed (a partly used
    /// last value is consumed whole).
    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 7)
        while out.count < count {
            let v = next()
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
            }
        }
        return Array(out.prefix(count))
    }

    /// A lowercase version-4-shaped UUID string (Python's `str(uuid.uuid4())`, Go's
    /// `uuid.New().String()`, Ecto's `binary_id`), from the next two values.
    mutating func uuid() -> String {
        uuidV4String(bytes(16))
    }

    /// The first UUID of the sequence for `seed`.
    static func uuid(seed: String) -> String {
        var rng = SeedRandom(seed: seed)
        return rng.uuid()
    }

    /// Sub-second noise for timestamps: 0..<1_000_000 microseconds.
    mutating func micros() -> Int64 { Int64(next() % 1_000_000) }

    /// `count` base-36 characters (lowercase), one value each.
    mutating func base36(_ count: Int) -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        return String((0..<count).map { _ in alphabet[Int(next() % 36)] })
    }
}

/// A version-4-shaped UUID string from the first 16 of `bytes` (version and variant bits set),
/// lowercase and dashed like `str(uuid.uuid4())`.
func uuidV4String(_ bytes: [UInt8]) -> String {
    var b = Array(bytes.prefix(16))
    b[6] = (b[6] & 0x0f) | 0x40
    b[8] = (b[8] & 0x3f) | 0x80
    let hex = b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
    return hex[0..<4].joined() + "-" + hex[4..<6].joined() + "-" + hex[6..<8].joined() + "-" + hex[8..<10].joined()
        + "-"
        + hex[10..<16].joined()
}
