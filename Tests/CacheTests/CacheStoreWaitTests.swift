import Cache
import Foundation
import Gates
import Model
import Synchronization
import Testing

/// No wait in the cache is endless: a fetch that never ends is abandoned at the store's fetch
/// limit (its waiters answered, its key freed), and a caller that is cancelled stops waiting.
@Suite("Cache store waits")
struct CacheStoreWaitTests {
    static func store(
        fetchLimit: Duration, clock: TestClock = TestClock(),
        overrunTimer: (@Sendable (Duration) async -> Void)? = nil
    ) throws -> (CacheStore, ScratchFolder) {
        let folder = ScratchFolder()
        let store = CacheStore(
            database: try CacheDatabase(stateDirectory: folder.path), maxBytes: 1_048_576, memoryBytes: 1_048_576,
            fetchLimit: fetchLimit, overrunTimer: overrunTimer, now: { clock.now })
        return (store, folder)
    }

    /// An overrun timer the test ends: the first fetch's limit passes when `first` opens, every
    /// later fetch's never (so no loaded machine can abandon a fetch the test expects to end).
    final class OverrunTimers: Sendable {
        let first = Gate()
        private let never = Gate()
        private let started = Mutex(0)

        func wait(_ limit: Duration) async {
            let index = started.withLock {
                $0 += 1
                return $0
            }
            await (index == 1 ? first : never).wait()
        }
    }

    @Test(.timeLimit(.minutes(1))) func aFetchThatNeverEndsIsAbandonedAndItsKeyFreed() async throws {
        let clock = TestClock()
        let timers = OverrunTimers()
        let (store, folder) = try Self.store(fetchLimit: .seconds(60), clock: clock, overrunTimer: timers.wait)
        defer { withExtendedLifetime(folder) {} }
        let never = Gate()
        let started = Gate()
        // No deadline of the caller's own: only the fetch limit ends this wait.
        async let waiting = store.lookup(CacheFixture.key, policy: CacheFixture.policy) {
            started.open()
            await never.wait()
            return CacheValue(body: Data("[0]".utf8))
        }
        await started.wait()
        timers.first.open()  // the first fetch's 60 s are up
        let first = await waiting
        #expect(first.outcome == .failed)
        #expect(first.error?.code == "upstream_timeout")
        // The key is free: the next request (after the failure's backoff) fetches anew instead
        // of joining the stuck fetch.
        clock.advance(CacheEntryStateMachine.initialBackoff)
        let second = await store.lookup(CacheFixture.key, policy: CacheFixture.policy, forceRefresh: true) {
            CacheValue(body: Data("[1]".utf8))
        }
        #expect(second.outcome == .refreshed)
        #expect(second.body == Data("[1]".utf8))
        // The abandoned fetch ending late does not overwrite the newer answer.
        never.open()
        try await Task.sleep(for: .milliseconds(50))
        let third = await store.lookup(CacheFixture.key, policy: CacheFixture.policy) {
            CacheValue(body: Data("[2]".utf8))
        }
        #expect(third.outcome == .fresh)
        #expect(third.body == Data("[1]".utf8))
    }

    /// The same with the store's own timers (`DeadlineTimers`, what the gateway runs with) and
    /// a short limit: the stuck fetch's waiter is answered once the limit has passed.
    @Test(.timeLimit(.minutes(1))) func theStoresOwnTimerAbandonsAFetchAtItsLimit() async throws {
        let (store, folder) = try Self.store(fetchLimit: .milliseconds(200))
        defer { withExtendedLifetime(folder) {} }
        let never = Gate()
        let began = ContinuousClock.now
        let result = await store.lookup(CacheFixture.key, policy: CacheFixture.policy) {
            await never.wait()
            return CacheValue(body: Data("[0]".utf8))
        }
        #expect(ContinuousClock.now - began >= .milliseconds(200))
        #expect(result.outcome == .failed)
        #expect(result.error?.code == "upstream_timeout")
        never.open()
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledCallerStopsWaitingAtOnce() async throws {
        let (store, folder) = try Self.store(fetchLimit: .seconds(3600))
        defer { withExtendedLifetime(folder) {} }
        let held = Gate()
        let started = Gate()
        let caller = Task {
            await store.lookup(CacheFixture.key, policy: CacheFixture.policy) {
                started.open()
                await held.wait()
                return CacheValue(body: Data("[0]".utf8))
            }
        }
        await started.wait()
        caller.cancel()
        let result = await caller.value
        #expect(result.outcome == .timedOut)
        // The fetch went on for the cache: once it ends, the entry is there.
        held.open()
        var fresh = false
        for _ in 0..<200 where !fresh {
            fresh =
                await store.lookup(CacheFixture.key, policy: CacheFixture.policy) {
                    CacheValue(body: Data("[9]".utf8))
                }.outcome == .fresh
            if !fresh { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(fresh)
    }
}
