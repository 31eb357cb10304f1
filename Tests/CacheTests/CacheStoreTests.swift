import Cache
import Foundation
import Gates
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
    private let state = Mutex<(calls: Int, failing: Bool, delay: Duration, version: Int, held: Gate?)>(
        (0, false, .zero, 0, nil))
    var calls: Int { state.withLock { $0.calls } }
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
    func delay(_ delay: Duration) { state.withLock { $0.delay = delay } }
    /// Answers only once `gate` opens: for tests that need the answer to come after something
    /// else (a deadline), whatever the machine's load — a delay would race it.
    func hold(until gate: Gate) { state.withLock { $0.held = gate } }

    func fetch() async throws -> Data {
        let (delay, failing, version, held) = state.withLock { state -> (Duration, Bool, Int, Gate?) in
            state.calls += 1
            state.version += 1
            return (state.delay, state.failing, state.version, state.held)
        }
        await held?.wait()
        if delay > .zero { try await Task.sleep(for: delay) }
        if failing { throw ErrorDetail(code: "upstream_error", message: "8alls answered 500") }
        return Data("[\(version)]".utf8)
    }
}

/// A scratch folder removed when the last reference goes.
final class ScratchFolder: Sendable {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-cache-\(UUID().uuidString)").path
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A store on a scratch folder, a hand-moved clock and a counting upstream.
struct CacheFixture {
    static let key = CacheKey(
        profile: "default", operation: "eightalls.events",
        arguments: [
            "from": .date(LocalDate(year: 2026, month: 11, day: 22)),
            "to": .date(LocalDate(year: 2026, month: 11, day: 22)),
        ],
        credentialFingerprint: "none")
    static let policy = CachePolicy(ttl: 60, staleWhileRevalidate: 60, staleIfError: 600)

    let folder: ScratchFolder
    let clock: TestClock
    let store: CacheStore
    let upstream = FakeUpstream()

    init(folder: ScratchFolder = ScratchFolder(), clock: TestClock = TestClock(), maxBytes: Int = 1_048_576) throws {
        self.folder = folder
        self.clock = clock
        self.store = CacheStore(
            database: try CacheDatabase(stateDirectory: folder.path), maxBytes: maxBytes, memoryBytes: 1_048_576,
            now: { clock.now }
        )
    }

    func lookup(_ key: CacheKey = key, force: Bool = false, deadline: Duration? = nil) async -> CacheLookupResult {
        let upstream = self.upstream
        return await store.lookup(key, policy: Self.policy, forceRefresh: force, deadline: deadline) {
            CacheValue(body: try await upstream.fetch())
        }
    }
}

@Suite("Cache store")
struct CacheStoreTests {
    @Test func missThenHit() async throws {
        let cache = try CacheFixture()
        let first = await cache.lookup()
        #expect(first.outcome == .miss)
        #expect(first.body == Data("[1]".utf8))
        cache.clock.advance(30)
        let second = await cache.lookup()
        #expect(second.outcome == .fresh)
        #expect(second.body == Data("[1]".utf8))
        #expect(second.windows?.ageSeconds(at: cache.clock.now) == 30)
        #expect(cache.upstream.calls == 1)
    }

    /// An answer that shows something the backend is still working on says how long it may be
    /// fresh; the entry is fresh that long only, then revalidated as usual.
    @Test func anAnswerFreshForLessThanTheTTLIsRevalidatedSooner() async throws {
        let cache = try CacheFixture()
        let upstream = cache.upstream
        func lookup() async -> CacheLookupResult {
            await cache.store.lookup(CacheFixture.key, policy: CacheFixture.policy, forceRefresh: false) {
                CacheValue(body: try await upstream.fetch(), freshFor: 5)
            }
        }
        _ = await lookup()
        cache.clock.advance(4)
        #expect(await lookup().outcome == .fresh)
        cache.clock.advance(2)
        #expect(await lookup().outcome == .staleRevalidating)
        let windows = CacheFixture.policy.windows(fetchedAt: cache.clock.now, freshFor: 500)
        #expect(windows.freshUntil == cache.clock.now.addingTimeInterval(60))
        #expect(CacheValue(body: Data("[1]".utf8), freshFor: 5) == CacheValue(body: Data("[1]".utf8)))
    }

    @Test func hundredConcurrentRequestsMakeOneCall() async throws {
        let cache = try CacheFixture()
        cache.upstream.delay(.milliseconds(100))
        let results = await withTaskGroup(of: CacheLookupResult.self) { group in
            for _ in 0..<100 {
                group.addTask { await cache.lookup() }
            }
            var all: [CacheLookupResult] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(cache.upstream.calls == 1)
        #expect(results.allSatisfy { $0.body == Data("[1]".utf8) })
        #expect(results.filter(\.collapsed).count == 99)
        #expect(cache.store.counters().collapsed == 99)
    }

    @Test func staleWhileRevalidateServesAtOnceAndRefreshesInTheBackground() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        cache.clock.advance(90)
        let stale = await cache.lookup()
        #expect(stale.outcome == .staleRevalidating)
        #expect(stale.body == Data("[1]".utf8))
        try await waitUntil { await cache.lookup().outcome == .fresh }
        let fresh = await cache.lookup()
        #expect(fresh.body == Data("[2]".utf8))
        #expect(cache.upstream.calls == 2)
    }

    @Test func staleIfErrorKeepsTheGoodEntry() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        cache.upstream.fail(true)
        cache.clock.advance(300)
        let failed = await cache.lookup()
        #expect(failed.outcome == .staleAfterError)
        #expect(failed.body == Data("[1]".utf8))
        #expect(failed.error?.code == "upstream_error")
        // Backing off: no new call however often it is asked.
        for _ in 0..<20 {
            #expect(await cache.lookup(force: true).outcome == .staleAfterError)
        }
        #expect(cache.upstream.calls == 2)
        // After the backoff the next request gets the entry at once and one fetch tries again.
        cache.clock.advance(2)
        let later = await cache.lookup()
        #expect(later.outcome == .staleAfterError)
        #expect(later.body == Data("[1]".utf8))
        try await waitUntil { cache.upstream.calls == 3 }
    }

    /// Every backend failing slowly: once a key's fetch has failed, a request with a kept entry
    /// gets it at once with the error after the backoff, not after its deadline, and the retry
    /// runs in the background; when the backend is back the entry is fresh again.
    @Test(.timeLimit(.minutes(1))) func aKnownFailingBackendIsNotWaitedFor() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        cache.upstream.fail(true)
        cache.clock.advance(300)
        #expect(await cache.lookup().outcome == .staleAfterError)
        cache.clock.advance(2)
        // The backend is back, but its answer comes only after the lookup is out: a request that
        // waited for it would end at its deadline.
        cache.upstream.fail(false)
        let answered = Gate()
        cache.upstream.hold(until: answered)
        let result = await cache.lookup(deadline: .seconds(30))
        #expect(result.outcome == .staleAfterError)
        #expect(result.body == Data("[1]".utf8))
        #expect(result.error?.code == "upstream_error")
        answered.open()
        try await waitUntil { await cache.lookup().outcome == .fresh }
        #expect(cache.upstream.calls == 3)
    }

    @Test func forcedRefreshRefetchesAndFallsBackToStale() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        let refreshed = await cache.lookup(force: true)
        #expect(refreshed.outcome == .refreshed)
        #expect(refreshed.body == Data("[2]".utf8))
        cache.upstream.fail(true)
        let failed = await cache.lookup(force: true)
        #expect(failed.outcome == .staleAfterError)
        #expect(failed.body == Data("[2]".utf8))
        // The next plain request does not get the copy as fresh again: the backend is failing.
        let after = await cache.lookup()
        #expect(after.outcome == .staleAfterError)
        #expect(after.body == Data("[2]".utf8))
        #expect(after.error != nil)
    }

    @Test func noDataAndFailureIsAnError() async throws {
        let cache = try CacheFixture()
        cache.upstream.fail(true)
        let result = await cache.lookup()
        #expect(result.outcome == .failed)
        #expect(result.body == nil)
        #expect(result.error?.message == "8alls answered 500")
    }

    /// The upstream answers only once the test has the lookup's result (a gate, not a delay it
    /// would race against the deadline on a starved machine: a 1 s delay once lost to a 50 ms
    /// deadline that got no thread in time). Without a deadline the lookup would wait for the
    /// gate for ever; the time limit fails it.
    @Test(.timeLimit(.minutes(1))) func deadlineWithoutDataTimesOutAndTheFetchStillFillsTheCache() async throws {
        let cache = try CacheFixture()
        let answered = Gate()
        cache.upstream.hold(until: answered)
        let timeout = ErrorDetail(code: "upstream_timeout", message: "eightalls did not answer in 50 ms")
        let upstream = cache.upstream
        let result = await cache.store.lookup(
            CacheFixture.key, policy: CacheFixture.policy, deadline: .milliseconds(50), timeoutError: timeout
        ) {
            CacheValue(body: try await upstream.fetch())
        }
        answered.open()
        #expect(result.outcome == .timedOut)
        #expect(result.error == timeout)
        try await waitUntil { await cache.lookup().outcome == .fresh }
        #expect(cache.upstream.calls == 1)
    }

    @Test(.timeLimit(.minutes(1))) func deadlineWithStaleDataServesIt() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        cache.clock.advance(300)
        // The refetch answers only after the result is out (a 3 s delay was not enough on a
        // machine stalled for 20 s): the deadline comes first on any machine.
        let answered = Gate()
        cache.upstream.hold(until: answered)
        let result = await cache.lookup(deadline: .milliseconds(50))
        answered.open()
        #expect(result.outcome == .staleAfterTimeout)
        #expect(result.body == Data("[1]".utf8))
        #expect(result.error?.code == "upstream_timeout")
    }

    @Test func entriesSurviveARestart() async throws {
        let folder = ScratchFolder()
        let clock = TestClock()
        do {
            _ = await (try CacheFixture(folder: folder, clock: clock)).lookup()
        }
        clock.advance(10)
        let reopened = try CacheFixture(folder: folder, clock: clock)
        let result = await reopened.lookup()
        #expect(result.outcome == .fresh)
        #expect(result.body == Data("[1]".utf8))
        #expect(reopened.upstream.calls == 0)
        #expect(try reopened.store.database.integrityCheck() == "ok")
        let attributes = try FileManager.default.attributesOfItem(atPath: reopened.store.database.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func sizeCapEvictsTheOldest() async throws {
        let cache = try CacheFixture(maxBytes: 2_000)
        let big = Data(repeating: UInt8(ascii: "x"), count: 600)
        func key(_ day: Int) -> CacheKey {
            CacheKey(
                profile: "default", operation: "eightalls.events",
                arguments: ["date": .date(LocalDate(year: 2026, month: 11, day: day))],
                credentialFingerprint: "none")
        }
        for day in 1...5 {
            _ = await cache.store.lookup(key(day), policy: CacheFixture.policy) { CacheValue(body: big) }
            cache.clock.advance(1)
        }
        let stats = try cache.store.database.stats()
        #expect(stats.bytes <= 2_000)
        #expect(stats.entries == 2)
        #expect(try cache.store.database.entry(forKey: key(1).storageKey, now: cache.clock.now) == nil)
        #expect(try cache.store.database.entry(forKey: key(5).storageKey, now: cache.clock.now) != nil)
    }

    @Test func keysSeparateProfilesArgumentsAndCredentials() {
        let base = CacheKey(
            profile: "anna", operation: "op", arguments: ["b": .int(2), "a": .string("1")], credentialFingerprint: "f1")
        #expect(
            base
                == CacheKey(
                    profile: "anna", operation: "op", arguments: ["a": .string("1"), "b": .int(2), "c": .string("")],
                    credentialFingerprint: "f1"))
        #expect(
            base
                != CacheKey(
                    profile: "ben", operation: "op", arguments: ["a": .string("1"), "b": .int(2)],
                    credentialFingerprint: "f1"))
        #expect(
            base
                != CacheKey(
                    profile: "anna", operation: "op", arguments: ["a": .string("1"), "b": .int(2)],
                    credentialFingerprint: "f2"))
        #expect(
            base
                != CacheKey(
                    profile: "anna", operation: "op", arguments: ["a": .string("1|x"), "b": .int(2)],
                    credentialFingerprint: "f1"))
        #expect(
            CacheKey(profile: "a|b", operation: "c", arguments: [:], credentialFingerprint: "d")
                != CacheKey(profile: "a", operation: "b|c", arguments: [:], credentialFingerprint: "d"))
    }

    @Test func invalidateDropsBothTiers() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        await cache.store.invalidate(profile: "default", operation: "eightalls.events")
        #expect(await cache.lookup().outcome == .miss)
        #expect(cache.upstream.calls == 2)
    }

    /// A write invalidates while a fetch is on its way: what that fetch brings may predate the
    /// write, so it is given only to those who asked before, and not kept; whoever asks after
    /// the write gets a new fetch.
    @Test func aFetchOvertakenByAnInvalidationIsNotKept() async throws {
        let cache = try CacheFixture()
        cache.upstream.delay(.milliseconds(300))
        async let before = cache.lookup()
        try await waitUntil { cache.upstream.calls == 1 }
        await cache.store.invalidate(profile: "default", operation: "eightalls.events")
        async let after = cache.lookup()
        let (early, late) = await (before, after)
        #expect(early.body == Data("[1]".utf8))
        #expect(late.body == Data("[2]".utf8))
        #expect(late.outcome == .miss)
        let next = await cache.lookup()
        #expect(next.outcome == .fresh)
        #expect(next.body == Data("[2]".utf8))
        #expect(cache.upstream.calls == 2)
    }

    @Test func anOvertakenFetchWithNobodyAskingAfterLeavesTheKeyCold() async throws {
        let cache = try CacheFixture()
        cache.upstream.delay(.milliseconds(200))
        async let before = cache.lookup()
        try await waitUntil { cache.upstream.calls == 1 }
        await cache.store.invalidate(profile: "default", operation: "eightalls.events")
        #expect(await before.body == Data("[1]".utf8))
        cache.upstream.delay(.zero)
        let next = await cache.lookup()
        #expect(next.outcome == .miss)
        #expect(next.body == Data("[2]".utf8))
        // Nor was the overtaken answer left in SQLite for a restart to find.
        let restarted = try CacheFixture(folder: cache.folder, clock: cache.clock)
        #expect(await restarted.lookup().body == Data("[2]".utf8))
    }

    /// A backend's hint while a fetch is on its way: the fetched data is kept, but as stale,
    /// so the next request revalidates.
    @Test func aFetchOvertakenByAHintIsKeptAsStale() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        cache.upstream.delay(.milliseconds(200))
        async let refreshed = cache.lookup(force: true)
        try await waitUntil { cache.upstream.calls == 2 }
        await cache.store.expire(profile: "default", operation: "eightalls.events")
        #expect(await refreshed.body == Data("[2]".utf8))
        cache.upstream.delay(.zero)
        let next = await cache.lookup()
        #expect(next.outcome == .staleRevalidating)
        #expect(next.body == Data("[2]".utf8))
        try await waitUntil { await cache.lookup().body == Data("[3]".utf8) }
    }

    /// A fetch runs in a task of its own (it outlives a requester that leaves); that task prefers
    /// the executor of the request that started it (`TaskPlacement`), and so does a
    /// revalidation started by a request; a fetch started outside a request prefers none.
    @Test func aFetchPrefersTheExecutorOfTheRequestThatStartedIt() async throws {
        let cache = try CacheFixture()
        let executor = QueueTaskExecutor()
        let seen = Mutex<[Bool]>([])
        func lookup(force: Bool) async -> CacheLookupResult {
            await cache.store.lookup(CacheFixture.key, policy: CacheFixture.policy, forceRefresh: force) {
                seen.withLock { $0.append(executor.isPreferredHere) }
                return CacheValue(body: Data("[1]".utf8))
            }
        }
        _ = await TaskPlacement.$preferred.withValue(executor) { await lookup(force: false) }
        _ = await TaskPlacement.$preferred.withValue(executor) { await lookup(force: true) }
        _ = await lookup(force: true)
        #expect(seen.withLock { $0 } == [true, true, false])
    }
}

/// Polls `condition` for up to two seconds.
func waitUntil(_ condition: @Sendable () async throws -> Bool) async throws {
    for _ in 0..<600 {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within 2 s")
}
