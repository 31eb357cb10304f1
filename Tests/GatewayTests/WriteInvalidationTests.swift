import Backends
import Cache
import Foundation
import Model
import Testing

@testable import Gateway

/// A write drops exactly the cached entries it made wrong: the predicates read the entries'
/// typed arguments (dates, not strings parsed back), so an event write leaves the days it
/// did not touch in the cache.
@Suite("Write invalidation")
struct WriteInvalidationTests {
    static let policy = CachePolicy(ttl: 60, staleWhileRevalidate: 60, staleIfError: 600)

    static func key(_ from: LocalDate, _ to: LocalDate) -> CacheKey {
        CacheKey(
            profile: "default", operation: "eightalls.events", arguments: ["from": .date(from), "to": .date(to)],
            credentialFingerprint: "none")
    }

    @Test func anEventWriteDropsOnlyTheListsOfTheDaysItTouched() async throws {
        try await withHarness { harness in
            let cache = harness.runtime.cache
            let zone = harness.runtime.config.timeZone
            let monday = LocalDate(year: 2026, month: 11, day: 23)
            let days = (0..<7).map { monday.adding(days: $0) }
            let keys = days.map { Self.key($0, $0) } + [Self.key(days[0], days[6]), Self.key(days[4], days[5])]
            for key in keys {
                #expect(
                    await cache.lookup(key, policy: Self.policy) { CacheValue(body: Data("[]".utf8)) }.outcome == .miss)
            }

            // An event from Wednesday 23:30 to Thursday 00:30 touches both days.
            let start = days[2].interval(in: zone).start.addingTimeInterval(23.5 * 3600)
            await WriteRoutes(runtime: harness.runtime).invalidate(
                [EightAllsEventWrite.invalidation(touching: [DateInterval(start: start, duration: 3600)], zone: zone)],
                profile: "default")

            let dropped: Set<CacheKey> = [keys[2], keys[3], keys[7]]
            for key in keys {
                let outcome = await cache.lookup(key, policy: Self.policy) { CacheValue(body: Data("[1]".utf8)) }
                    .outcome
                #expect(outcome == (dropped.contains(key) ? .miss : .fresh), "\(key)")
            }
        }
    }
}
