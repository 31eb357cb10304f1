import Backends
import Cache
import Foundation
import Model
import Synchronization
import Testing

@testable import Aggregation

/// A kept answer aged again when its clock ticks (`Aggregator.reaged`, `AnswerReaging`): the
/// figures that move with the clock read at the later moment, everything else as it was — and
/// only while a lookup then would come out the same.
struct AnswerReagingTests {
    let start = Date(timeIntervalSince1970: 1_795_000_000)

    var windows: EntryWindows {
        EntryWindows(
            fetchedAt: start, freshUntil: start.addingTimeInterval(60), revalidateUntil: start.addingTimeInterval(90),
            expiresAt: start.addingTimeInterval(3600))
    }

    @Test func aFreshHitStaysOneUntilItsFreshnessEnds() {
        #expect(AnswerReaging.staysTheSame(.fresh, windows: windows, at: start.addingTimeInterval(59.9)))
        #expect(!AnswerReaging.staysTheSame(.fresh, windows: windows, at: start.addingTimeInterval(60)))
    }

    @Test func aStaleServeStaysOneWithinStaleWhileRevalidate() {
        #expect(AnswerReaging.staysTheSame(.staleRevalidating, windows: windows, at: start.addingTimeInterval(89.9)))
        #expect(!AnswerReaging.staysTheSame(.staleRevalidating, windows: windows, at: start.addingTimeInterval(90)))
        #expect(!AnswerReaging.staysTheSame(.staleRevalidating, windows: windows, at: start.addingTimeInterval(30)))
    }

    @Test func nothingElseIsAgedAgain() {
        for outcome in [
            CacheLookupResult.Outcome.miss, .refreshed, .staleAfterError, .staleAfterTimeout, .failed, .timedOut,
        ] {
            #expect(
                !AnswerReaging.staysTheSame(outcome, windows: windows, at: start.addingTimeInterval(1)), "\(outcome)")
        }
    }

    /// A clock the aggregator and its cache share, set by the test.
    final class Clock: Sendable {
        let now: Mutex<Date>
        init(_ start: Date) { now = Mutex(start) }
        func read() -> Date { now.withLock { $0 } }
        func set(_ date: Date) { now.withLock { $0 = date } }
    }

    func makeAggregator(body: String, clock: Clock) throws -> (Aggregator, Route, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-reage-\(UUID().uuidString)")
            .path
        let config = DaygateConfig(
            stateDir: folder, timezone: "Europe/Amsterdam", profiles: ["default": ProfileConfig()])
        let store = CacheStore(
            database: try CacheDatabase(stateDirectory: folder), maxBytes: 16 << 20, memoryBytes: 16 << 20,
            now: { clock.read() })
        let operations = [
            ScriptedOperation("test.one", backend: "alpha", .answer(body)),
            ScriptedOperation("test.two", backend: "beta", .answer(#"{"n":2}"#)),
        ]
        let route = try RouteLoader(registry: OperationRegistry(operations)).parse(
            """
            path: /v1/test
            parameters:
              date: { type: date, default: today }
            sections:
              one: { operation: test.one, arguments: { date: $date } }
              two: { operation: test.two, arguments: { date: $date } }
            """, file: "test.yaml")
        let aggregator = Aggregator(
            config: config, cache: store, http: UpstreamHTTP(client: .shared),
            sessions: SessionRegistry(vault: MemoryCredentialVault()), now: { clock.read() })
        return (aggregator, route, folder)
    }

    @Test func anAnswerAgedLaterIsWhatALookupThenComposes() async throws {
        let clock = Clock(start.addingTimeInterval(0.25))
        let (aggregator, route, folder) = try makeAggregator(body: #"{"n":1}"#, clock: clock)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let query = [("date", "2026-11-29")]
        _ = try await aggregator.run(route: route, query: query, profileName: "default")  // fetched
        clock.set(start.addingTimeInterval(0.6))
        let kept = try await aggregator.run(route: route, query: query, profileName: "default")
        let reaged = try #require(kept.reaged, "every section a fresh hit: it can be aged again")
        #expect(kept.ageSeconds == 0)

        let later = start.addingTimeInterval(7.4)
        let aged = try #require(reaged(later))
        clock.set(later)
        let ran = try await aggregator.run(route: route, query: query, profileName: "default")
        #expect(aged.ageSeconds == 7)
        #expect(aged.ageSeconds == ran.ageSeconds)
        #expect(aged.maxAge == ran.maxAge && aged.maxAge == 52)
        #expect(aged.reusableUntil == ran.reusableUntil)
        #expect(aged.generation == ran.generation && aged.profile == "default")
        #expect(aged.sections.mapValues(\.ageSeconds) == ran.sections.mapValues(\.ageSeconds))
        // The body bar each section's `duration_ms` (a lookup's own time, kept from the lookups
        // it was made from): the data, statuses and errors (the validator), and the ages above.
        #expect(aged.validatorBody == ran.validatorBody && aged.validatorBody == kept.validatorBody)
        #expect(aged.sections.mapValues(\.status) == ran.sections.mapValues(\.status))
        #expect(aged.reaged?(start.addingTimeInterval(20.3))?.ageSeconds == 20, "an aged answer ages again")

        // Once a section's freshness has ended (fetched at 0.25 s, fresh for 60 s) a lookup would
        // serve it stale and refresh it.
        #expect(reaged(start.addingTimeInterval(60.3)) == nil)
    }

    @Test func anAnswerTooLargeToComposeOnAnEventLoopIsNotAgedAgain() async throws {
        let clock = Clock(start)
        let large =
            "[" + Array(repeating: #""0123456789abcdef0123456789abcdef""#, count: 4096).joined(separator: ",") + "]"
        let (aggregator, route, folder) = try makeAggregator(body: large, clock: clock)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let query = [("date", "2026-11-29")]
        _ = try await aggregator.run(route: route, query: query, profileName: "default")
        clock.set(start.addingTimeInterval(0.5))
        let kept = try await aggregator.run(route: route, query: query, profileName: "default")
        #expect(kept.reusableUntil != nil)
        #expect(kept.reaged == nil)
    }
}
