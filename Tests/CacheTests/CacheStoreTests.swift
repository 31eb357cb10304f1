import Cache
import Foundation
import Model
import Synchronization
import Testing

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Counts upstream calls and answers as told.
final class FakeUpstream: Sendable {
    private let state = Mutex<(calls: Int, failing: Bool, delay: Duration, version: Int)>((0, false, .zero, 0))
    var calls: Int { state.withLock { $0.calls } }
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
    func delay(_ delay: Duration) { state.withLock { $0.delay = delay } }

    func fetch() async throws -> Data {
        let (delay, failing, version) = state.withLock { state -> (Duration, Bool, Int) in
            state.calls += 1
            state.version += 1
            return (state.delay, state.failing, state.version)
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if failing { throw ErrorDetail(code: "upstream_error", message: "8alls answered 500") }
        return Data("[\(version)]".utf8)
    }
}

func temporaryFolder() -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-cache-\(UUID().uuidString)").path
    return path
}

@Suite("Cache store")
struct CacheStoreTests {
    let key = CacheKey(profile: "default", operation: "eightalls.events", arguments: ["from": "2026-11-22", "to": "2026-11-22"], credentialFingerprint: "none")
    let policy = CachePolicy(ttl: 60, staleWhileRevalidate: 60, staleIfError: 600)

    func makeStore(folder: String, clock: TestClock, maxBytes: Int = 1_048_576) throws -> CacheStore {
        CacheStore(database: try CacheDatabase(stateDirectory: folder), maxBytes: maxBytes, memoryBytes: 1_048_576, now: { clock.now })
    }

    @Test func missThenHit() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = TestClock()
        let store = try makeStore(folder: folder, clock: clock)
        let upstream = FakeUpstream()
        let first = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(first.outcome == .miss)
        #expect(first.body == Data("[1]".utf8))
        clock.advance(30)
        let second = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(second.outcome == .fresh)
        #expect(second.body == Data("[1]".utf8))
        #expect(second.windows?.ageSeconds(at: clock.now) == 30)
        #expect(upstream.calls == 1)
    }

    @Test func hundredConcurrentRequestsMakeOneCall() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder: folder, clock: TestClock())
        let upstream = FakeUpstream()
        upstream.delay(.milliseconds(100))
        let results = await withTaskGroup(of: CacheLookupResult.self) { group in
            for _ in 0..<100 {
                group.addTask { await store.lookup(key, policy: policy) { try await upstream.fetch() } }
            }
            var all: [CacheLookupResult] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(upstream.calls == 1)
        #expect(results.allSatisfy { $0.body == Data("[1]".utf8) })
        #expect(results.filter(\.collapsed).count == 99)
        #expect(await store.counters().collapsed == 99)
    }

    @Test func staleWhileRevalidateServesAtOnceAndRefreshesInTheBackground() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = TestClock()
        let store = try makeStore(folder: folder, clock: clock)
        let upstream = FakeUpstream()
        _ = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        clock.advance(90)
        let stale = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(stale.outcome == .staleRevalidating)
        #expect(stale.body == Data("[1]".utf8))
        try await waitUntil { upstream.calls == 2 }
        try await waitUntil {
            await store.lookup(key, policy: policy) { try await upstream.fetch() }.outcome == .fresh
        }
        let fresh = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(fresh.body == Data("[2]".utf8))
        #expect(upstream.calls == 2)
    }

    @Test func staleIfErrorKeepsTheGoodEntry() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = TestClock()
        let store = try makeStore(folder: folder, clock: clock)
        let upstream = FakeUpstream()
        _ = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        upstream.fail(true)
        clock.advance(300)
        let failed = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(failed.outcome == .staleAfterError)
        #expect(failed.body == Data("[1]".utf8))
        #expect(failed.error?.code == "upstream_error")
        // Backing off: no new call however often it is asked.
        for _ in 0..<20 {
            let again = await store.lookup(key, policy: policy, forceRefresh: true) { try await upstream.fetch() }
            #expect(again.outcome == .staleAfterError)
        }
        #expect(upstream.calls == 2)
        // After the backoff the next try still keeps the entry.
        clock.advance(2)
        let later = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(later.outcome == .staleAfterError)
        #expect(later.body == Data("[1]".utf8))
        #expect(upstream.calls == 3)
    }

    @Test func forcedRefreshRefetchesAndFallsBackToStale() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = TestClock()
        let store = try makeStore(folder: folder, clock: clock)
        let upstream = FakeUpstream()
        _ = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        let refreshed = await store.lookup(key, policy: policy, forceRefresh: true) { try await upstream.fetch() }
        #expect(refreshed.outcome == .refreshed)
        #expect(refreshed.body == Data("[2]".utf8))
        upstream.fail(true)
        let failed = await store.lookup(key, policy: policy, forceRefresh: true) { try await upstream.fetch() }
        #expect(failed.outcome == .staleAfterError)
        #expect(failed.body == Data("[2]".utf8))
    }

    @Test func noDataAndFailureIsAnError() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder: folder, clock: TestClock())
        let upstream = FakeUpstream()
        upstream.fail(true)
        let result = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(result.outcome == .failed)
        #expect(result.body == nil)
        #expect(result.error?.message == "8alls answered 500")
    }

    @Test func deadlineWithoutDataTimesOutAndTheFetchStillFillsTheCache() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder: folder, clock: TestClock())
        let upstream = FakeUpstream()
        upstream.delay(.milliseconds(300))
        let timeout = ErrorDetail(code: "upstream_timeout", message: "eightalls did not answer in 50 ms")
        let result = await store.lookup(key, policy: policy, deadline: .milliseconds(50), timeoutError: timeout) { try await upstream.fetch() }
        #expect(result.outcome == .timedOut)
        #expect(result.error == timeout)
        try await waitUntil {
            await store.lookup(key, policy: policy) { try await upstream.fetch() }.outcome == .fresh
        }
        #expect(upstream.calls == 1)
    }

    @Test func deadlineWithStaleDataServesIt() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = TestClock()
        let store = try makeStore(folder: folder, clock: clock)
        let upstream = FakeUpstream()
        _ = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        clock.advance(300)
        upstream.delay(.milliseconds(300))
        let result = await store.lookup(key, policy: policy, deadline: .milliseconds(50)) { try await upstream.fetch() }
        #expect(result.outcome == .staleAfterTimeout)
        #expect(result.body == Data("[1]".utf8))
        #expect(result.error?.code == "upstream_timeout")
    }

    @Test func entriesSurviveARestart() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = TestClock()
        let upstream = FakeUpstream()
        do {
            let store = try makeStore(folder: folder, clock: clock)
            _ = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        }
        clock.advance(10)
        let reopened = try makeStore(folder: folder, clock: clock)
        let result = await reopened.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(result.outcome == .fresh)
        #expect(result.body == Data("[1]".utf8))
        #expect(upstream.calls == 1)
        #expect(try reopened.database.integrityCheck() == "ok")
        let attributes = try FileManager.default.attributesOfItem(atPath: reopened.database.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func sizeCapEvictsTheOldest() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = TestClock()
        let store = try makeStore(folder: folder, clock: clock, maxBytes: 2_000)
        let big = Data(repeating: UInt8(ascii: "x"), count: 600)
        for day in 1...5 {
            let key = CacheKey(profile: "default", operation: "eightalls.events", arguments: ["date": "2026-11-0\(day)"], credentialFingerprint: "none")
            _ = await store.lookup(key, policy: policy) { big }
            clock.advance(1)
        }
        let stats = try store.database.stats()
        #expect(stats.bytes <= 2_000)
        #expect(stats.entries == 2)
        let oldest = CacheKey(profile: "default", operation: "eightalls.events", arguments: ["date": "2026-11-01"], credentialFingerprint: "none")
        #expect(try store.database.entry(forKey: oldest.storageKey, now: clock.now) == nil)
    }

    @Test func keysSeparateProfilesArgumentsAndCredentials() {
        let base = CacheKey(profile: "anna", operation: "op", arguments: ["b": "2", "a": "1"], credentialFingerprint: "f1")
        #expect(base == CacheKey(profile: "anna", operation: "op", arguments: ["a": "1", "b": "2", "c": ""], credentialFingerprint: "f1"))
        #expect(base != CacheKey(profile: "ben", operation: "op", arguments: ["a": "1", "b": "2"], credentialFingerprint: "f1"))
        #expect(base != CacheKey(profile: "anna", operation: "op", arguments: ["a": "1", "b": "2"], credentialFingerprint: "f2"))
        #expect(base != CacheKey(profile: "anna", operation: "op", arguments: ["a": "1|x", "b": "2"], credentialFingerprint: "f1"))
        #expect(CacheKey(profile: "a|b", operation: "c", arguments: [:], credentialFingerprint: "d") != CacheKey(profile: "a", operation: "b|c", arguments: [:], credentialFingerprint: "d"))
    }

    @Test func invalidateDropsBothTiers() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder: folder, clock: TestClock())
        let upstream = FakeUpstream()
        _ = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        await store.invalidate(storageKeyPrefix: "default|eightalls.events|")
        let after = await store.lookup(key, policy: policy) { try await upstream.fetch() }
        #expect(after.outcome == .miss)
        #expect(upstream.calls == 2)
    }
}

/// Polls `condition` for up to two seconds.
func waitUntil(_ condition: @Sendable () async throws -> Bool) async throws {
    for _ in 0..<200 {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within 2 s")
}
