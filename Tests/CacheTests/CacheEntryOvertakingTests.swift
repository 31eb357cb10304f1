import Cache
import Foundation
import Model
import Testing

/// Invalidation and expiry as events of the entry state machine, without SQLite or sockets:
/// the machine alone decides whether a completed fetch was overtaken by a change.
@Suite("Cache entry invalidation and expiry")
struct CacheEntryOvertakingTests {
    typealias Machine = CacheEntryStateMachine

    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = CachePolicy(ttl: 60, staleWhileRevalidate: 60, staleIfError: 600)

    /// A machine with a fresh entry and a forced fetch on its way.
    func fetching() -> Machine {
        var machine = Machine(windows: policy.windows(fetchedAt: now.addingTimeInterval(-10)))
        #expect(machine.request(now: now, forceRefresh: true) == .waitForFetch(startFetch: true))
        return machine
    }

    @Test func aWriteOvertakesTheFetchInFlight() {
        var machine = fetching()
        #expect(machine.invalidate(firstWaiterAfter: 7) == [.dropFromMemory, .deleteRow, .markOvertaken(.invalidated)])
        #expect(machine.windows == nil, "nothing is served from an invalidated entry")
        #expect(machine.fetchInFlight, "the fetch still answers those who asked before")
        #expect(machine.overtaking == Machine.Overtaking(reason: .invalidated, firstWaiterAfter: 7))
        // A request after the write joins the flight; the machine knows it came after.
        #expect(machine.request(now: now, forceRefresh: false) == .waitForFetch(startFetch: false))

        let fetched = policy.windows(fetchedAt: now.addingTimeInterval(1))
        let action = machine.fetchSucceeded(windows: fetched, now: now.addingTimeInterval(1))
        #expect(action == .resumeEarlierWaiters(firstWaiterAfter: 7, actions: [.dropFromMemory, .deleteRow]))
        #expect(machine == Machine(), "what the fetch brought is not kept")
        #expect(machine.request(now: now.addingTimeInterval(1), forceRefresh: false) == .waitForFetch(startFetch: true))
    }

    @Test func anExpiryDuringAFetchKeepsWhatItBringsAsStale() throws {
        var machine = fetching()
        let actions = machine.expire(now: now, firstWaiterAfter: 3)
        let stale = try #require(machine.windows)
        #expect(actions == [.markOvertaken(.expired), .republish(stale)])
        #expect(stale.phase(at: now) == .staleWhileRevalidate)
        #expect(machine.overtaking == Machine.Overtaking(reason: .expired, firstWaiterAfter: 3))

        let arrived = now.addingTimeInterval(2)
        let fetched = policy.windows(fetchedAt: arrived)
        let action = machine.fetchSucceeded(windows: fetched, now: arrived)
        let kept = try #require(machine.windows)
        #expect(action == .resumeEarlierWaiters(firstWaiterAfter: 3, actions: [.republish(kept)]))
        #expect(kept.fetchedAt == arrived)
        #expect(kept.phase(at: arrived) == .staleWhileRevalidate, "not fresh: it may predate the change")
        #expect(kept.expiresAt == fetched.expiresAt)
        #expect(machine.overtaking == nil)
        #expect(machine.request(now: arrived, forceRefresh: false) == .serveStaleAndRevalidate(startFetch: true))
    }

    @Test func aFetchStartedAfterAnInvalidationIsStoredAsFresh() {
        var machine = Machine(windows: policy.windows(fetchedAt: now.addingTimeInterval(-10)))
        #expect(machine.invalidate(firstWaiterAfter: 1) == [.dropFromMemory, .deleteRow, .forgetMachine])
        #expect(machine == Machine())
        #expect(machine.request(now: now, forceRefresh: false) == .waitForFetch(startFetch: true))
        let fetched = policy.windows(fetchedAt: now)
        #expect(machine.fetchSucceeded(windows: fetched) == .storeAndResumeWaiters(fetched))
        #expect(machine.request(now: now, forceRefresh: false) == .serveFresh)
    }

    @Test func anInvalidationForgetsTheBackoffOfAnIdleKey() {
        var machine = Machine()
        _ = machine.request(now: now, forceRefresh: false)
        _ = machine.fetchFailed(now: now, error: ErrorDetail(code: "upstream_error", message: "500"))
        #expect(machine.retryNotBefore != nil)
        #expect(machine.invalidate(firstWaiterAfter: 1).contains(.forgetMachine))
        #expect(machine.request(now: now, forceRefresh: false) == .waitForFetch(startFetch: true))
    }

    @Test func anInvalidationOutranksAnExpiry() {
        var invalidatedFirst = fetching()
        _ = invalidatedFirst.invalidate(firstWaiterAfter: 2)
        #expect(invalidatedFirst.expire(now: now, firstWaiterAfter: 5) == [.markOvertaken(.invalidated)])
        #expect(invalidatedFirst.overtaking == Machine.Overtaking(reason: .invalidated, firstWaiterAfter: 2))

        var expiredFirst = fetching()
        _ = expiredFirst.expire(now: now, firstWaiterAfter: 2)
        _ = expiredFirst.invalidate(firstWaiterAfter: 5)
        #expect(expiredFirst.overtaking == Machine.Overtaking(reason: .invalidated, firstWaiterAfter: 5))
        let action = expiredFirst.fetchSucceeded(windows: policy.windows(fetchedAt: now))
        #expect(action == .resumeEarlierWaiters(firstWaiterAfter: 5, actions: [.dropFromMemory, .deleteRow]))
    }

    @Test func aLaterExpiryMovesTheLine() {
        var machine = fetching()
        _ = machine.expire(now: now, firstWaiterAfter: 2)
        _ = machine.expire(now: now.addingTimeInterval(1), firstWaiterAfter: 4)
        #expect(machine.overtaking == Machine.Overtaking(reason: .expired, firstWaiterAfter: 4))
    }

    @Test func aFailedOvertakenFetchIsAnOrdinaryFailure() {
        let failure = ErrorDetail(code: "upstream_error", message: "8alls answered 500")
        var invalidated = fetching()
        _ = invalidated.invalidate(firstWaiterAfter: 1)
        #expect(invalidated.fetchFailed(now: now, error: failure) == .resumeWaitersWithError(failure))
        #expect(invalidated.overtaking == nil)

        var expired = fetching()
        _ = expired.expire(now: now, firstWaiterAfter: 1)
        #expect(expired.fetchFailed(now: now, error: failure) == .resumeWaitersWithStale(failure))
        #expect(expired.overtaking == nil)
    }

    @Test func expiringAnIdleKey() throws {
        var fresh = Machine(windows: policy.windows(fetchedAt: now.addingTimeInterval(-10)))
        let actions = fresh.expire(now: now, firstWaiterAfter: 1)
        #expect(actions == [.republish(try #require(fresh.windows))])
        #expect(fresh.overtaking == nil, "no fetch to overtake")
        var empty = Machine()
        #expect(empty.expire(now: now, firstWaiterAfter: 1) == [])
    }

    @Test func aLostEntryStartsOver() {
        var machine = Machine(windows: policy.windows(fetchedAt: now))
        machine.entryLost()
        #expect(machine == Machine())
    }
}
