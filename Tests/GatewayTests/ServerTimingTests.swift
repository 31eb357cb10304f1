import Aggregation
import Foundation
import SeededRandom
import Testing

@testable import Gateway

/// `Server-Timing`'s durations are written with one decimal, as `%.1f` writes them.
struct ServerTimingTests {
    @Test func aDurationHasOneDecimalAsPrintfWritesIt() {
        for (value, text) in [
            (0.0, "0.0"), (0.04, "0.0"), (0.06, "0.1"), (12.34, "12.3"), (99.96, "100.0"), (1234.5678, "1234.6"),
            (-0.0, "-0.0"), (-2.36, "-2.4"), (60_000.01, "60000.0"),
        ] {
            #expect(AggregateAnswer.oneDecimal(value) == text, "\(value)")
            #expect(String(format: "%.1f", value) == text, "the reference agrees on \(value)")
        }
        var rng = SplitMix64(seed: 0x7131_46)
        var compared = 0
        for _ in 0..<20_000 {
            let value = Double(rng.next() % 6_000_000_000) / 100_000 + Double(rng.next() % 1000) / 1e9
            // An exact half in decimal is rounded as written here and as stored in binary by
            // printf: such values are left out.
            let scaled = value * 10
            guard abs(scaled - scaled.rounded(.down) - 0.5) > 1e-6 else { continue }
            compared += 1
            #expect(AggregateAnswer.oneDecimal(value) == String(format: "%.1f", value), "\(value)")
        }
        #expect(compared > 19_000)
    }
}
