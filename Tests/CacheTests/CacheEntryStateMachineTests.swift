import Cache
import Foundation
import Model
import Testing

/// The entry lifecycle without I/O: every reachable state × every request kind, then the
/// transitions on fetch results and deadlines.
@Suite("Cache entry state machine")
struct CacheEntryStateMachineTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = CachePolicy(ttl: 60, staleWhileRevalidate: 60, staleIfError: 600)
    let failure = ErrorDetail(code: "upstream_error", message: "8alls answered 500")

    enum Entry: CaseIterable { case none, fresh, revalidate, staleIfError, expired }
    /// `failedBefore`: the last fetch failed and its backoff is over; `retrying`: that, and a
    /// retry is in flight.
    enum Flight: CaseIterable { case idle, inFlight, backingOff, failedBefore, retrying }

    func windows(_ entry: Entry) -> EntryWindows? {
        switch entry {
        case .none: nil
        case .fresh: policy.windows(fetchedAt: now.addingTimeInterval(-10))
        case .revalidate: policy.windows(fetchedAt: now.addingTimeInterval(-90))
        case .staleIfError: policy.windows(fetchedAt: now.addingTimeInterval(-300))
        case .expired: policy.windows(fetchedAt: now.addingTimeInterval(-1000))
        }
    }

    /// Builds a machine in a state through its own events only.
    func machine(_ entry: Entry, _ flight: Flight) -> CacheEntryStateMachine {
        var machine = CacheEntryStateMachine(windows: windows(entry))
        switch flight {
        case .idle:
            break
        case .inFlight:
            _ = machine.request(now: now, forceRefresh: true)
        case .backingOff:
            let earlier = now.addingTimeInterval(-0.5)
            _ = machine.request(now: earlier, forceRefresh: true)
            _ = machine.fetchFailed(now: earlier, error: failure)
        case .failedBefore, .retrying:
            let earlier = now.addingTimeInterval(-2)
            _ = machine.request(now: earlier, forceRefresh: true)
            _ = machine.fetchFailed(now: earlier, error: failure)
            if flight == .retrying { _ = machine.request(now: now.addingTimeInterval(-0.5), forceRefresh: true) }
        }
        return machine
    }

    /// The rules, written out as a decision table.
    func expected(_ entry: Entry, _ flight: Flight, force: Bool) -> CacheEntryStateMachine.RequestAction {
        // A fresh entry whose refetch failed is fresh no more: served as stale while backing off,
        // then while revalidating.
        let failed = flight == .backingOff || flight == .failedBefore || flight == .retrying
        if entry == .fresh, !force, !failed { return .serveFresh }
        let usable = entry == .fresh || entry == .revalidate || entry == .staleIfError
        switch flight {
        case .backingOff:
            return usable ? .serveStale(failure) : .fail(failure)
        case .failedBefore, .retrying:
            // Known to be failing: nobody waits for the retry when there is a copy to serve.
            let start = flight == .failedBefore
            if force { return .waitForFetch(startFetch: start) }
            if entry == .fresh || entry == .revalidate { return .serveStaleAndRevalidate(startFetch: start) }
            if entry == .staleIfError { return .serveStaleAndRetry(failure, startFetch: start) }
            return .waitForFetch(startFetch: start)
        case .inFlight:
            return entry == .revalidate && !force
                ? .serveStaleAndRevalidate(startFetch: false) : .waitForFetch(startFetch: false)
        case .idle:
            return entry == .revalidate && !force
                ? .serveStaleAndRevalidate(startFetch: true) : .waitForFetch(startFetch: true)
        }
    }

    @Test func everyStateAndRequest() {
        var checked = 0
        for entry in Entry.allCases {
            for flight in Flight.allCases {
                for force in [false, true] {
                    var subject = machine(entry, flight)
                    let action = subject.request(now: now, forceRefresh: force)
                    #expect(action == expected(entry, flight, force: force), "\(entry) \(flight) force=\(force)")
                    switch action {
                    case .waitForFetch, .serveStaleAndRevalidate, .serveStaleAndRetry:
                        #expect(subject.fetchInFlight, "a fetch is in flight after \(action)")
                    case .serveFresh, .serveStale, .fail:
                        #expect(subject.fetchInFlight == (flight == .inFlight || flight == .retrying))
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 50)
    }

    @Test func secondRequestJoinsTheFlight() {
        var machine = CacheEntryStateMachine()
        #expect(machine.request(now: now, forceRefresh: false) == .waitForFetch(startFetch: true))
        for _ in 0..<99 {
            #expect(machine.request(now: now, forceRefresh: false) == .waitForFetch(startFetch: false))
        }
    }

    @Test func successStoresAndClearsBackoff() {
        var machine = self.machine(.staleIfError, .backingOff)
        #expect(machine.consecutiveFailures == 1)
        let later = now.addingTimeInterval(5)
        #expect(machine.request(now: later, forceRefresh: false) == .serveStaleAndRetry(failure, startFetch: true))
        let fetched = policy.windows(fetchedAt: later)
        #expect(machine.fetchSucceeded(windows: fetched) == .storeAndResumeWaiters(fetched))
        #expect(machine.consecutiveFailures == 0)
        #expect(machine.retryNotBefore == nil)
        #expect(machine.lastError == nil)
        #expect(machine.request(now: later.addingTimeInterval(1), forceRefresh: false) == .serveFresh)
    }

    @Test(arguments: [Entry.fresh, .revalidate, .staleIfError])
    func failureKeepsAUsableEntry(entry: Entry) throws {
        var machine = CacheEntryStateMachine(windows: windows(entry))
        _ = machine.request(now: now, forceRefresh: true)
        #expect(machine.fetchFailed(now: now, error: failure) == .resumeWaitersWithStale(failure))
        let before = try #require(windows(entry))
        #expect(machine.windows?.fetchedAt == before.fetchedAt, "an error never overwrites a good entry")
        #expect(machine.windows?.expiresAt == before.expiresAt, "an error never shortens what is kept")
    }

    /// Refresh clicked while the backend is down: the copy was fresh, the refetch failed. The
    /// next plain request (the dashboard's reload on the failure event) gets it as stale with
    /// the error, not as fresh again; once the backoff is over it is served while a fetch
    /// tries again; a success makes it fresh.
    @Test func aFailedRefetchEndsFreshness() {
        var machine = CacheEntryStateMachine(windows: windows(.fresh))
        #expect(machine.request(now: now, forceRefresh: true) == .waitForFetch(startFetch: true))
        _ = machine.fetchFailed(now: now, error: failure)
        #expect(machine.request(now: now.addingTimeInterval(0.5), forceRefresh: false) == .serveStale(failure))
        #expect(
            machine.request(now: now.addingTimeInterval(1.5), forceRefresh: false)
                == .serveStaleAndRevalidate(startFetch: true))
        let fetched = policy.windows(fetchedAt: now.addingTimeInterval(2))
        #expect(machine.fetchSucceeded(windows: fetched) == .storeAndResumeWaiters(fetched))
        #expect(machine.request(now: now.addingTimeInterval(3), forceRefresh: false) == .serveFresh)
    }

    @Test(arguments: [Entry.none, .expired])
    func failureWithoutUsableEntry(entry: Entry) {
        var machine = CacheEntryStateMachine(windows: windows(entry))
        _ = machine.request(now: now, forceRefresh: false)
        #expect(machine.fetchFailed(now: now, error: failure) == .resumeWaitersWithError(failure))
    }

    @Test func backoffDoublesAndIsCapped() throws {
        var machine = CacheEntryStateMachine()
        var clock = now
        var waits: [TimeInterval] = []
        for _ in 0..<8 {
            #expect(machine.request(now: clock, forceRefresh: false) == .waitForFetch(startFetch: true))
            _ = machine.fetchFailed(now: clock, error: failure)
            let retry = try #require(machine.retryNotBefore)
            waits.append(retry.timeIntervalSince(clock))
            // Inside the backoff nothing starts: the error is answered at once.
            #expect(machine.request(now: clock.addingTimeInterval(0.1), forceRefresh: true) == .fail(failure))
            clock = retry
        }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30, 30])
    }

    @Test func retryAfterIsObeyed() throws {
        var machine = CacheEntryStateMachine(windows: windows(.staleIfError))
        _ = machine.request(now: now, forceRefresh: false)
        _ = machine.fetchFailed(now: now, error: failure, retryAfter: 400)
        #expect(machine.retryNotBefore == now.addingTimeInterval(400))
        #expect(machine.request(now: now.addingTimeInterval(399), forceRefresh: true) == .serveStale(failure))
        #expect(
            machine.request(now: now.addingTimeInterval(400), forceRefresh: false)
                == .serveStaleAndRetry(failure, startFetch: true))
    }

    @Test(arguments: Entry.allCases)
    func deadline(entry: Entry) {
        var machine = CacheEntryStateMachine(windows: windows(entry))
        _ = machine.request(now: now, forceRefresh: true)
        let action = machine.deadlineReached(now: now)
        let usable = entry != .none && entry != .expired
        #expect(action == (usable ? .serveStale : .timeout))
        #expect(machine.fetchInFlight, "the fetch goes on after a deadline")
    }

    @Test func phasesFollowTheWindows() {
        let windows = policy.windows(fetchedAt: now)
        #expect(windows.phase(at: now) == .fresh)
        #expect(windows.phase(at: now.addingTimeInterval(59.9)) == .fresh)
        #expect(windows.phase(at: now.addingTimeInterval(60)) == .staleWhileRevalidate)
        #expect(windows.phase(at: now.addingTimeInterval(120)) == .staleIfError)
        #expect(windows.phase(at: now.addingTimeInterval(719.9)) == .staleIfError)
        #expect(windows.phase(at: now.addingTimeInterval(720)) == .expired)
        #expect(windows.ageSeconds(at: now.addingTimeInterval(41.7)) == 41)
    }

    @Test func idleOnlyWithoutFlightOrBackoff() {
        #expect(machine(.fresh, .idle).isIdle(now: now))
        #expect(!machine(.fresh, .inFlight).isIdle(now: now))
        #expect(!machine(.fresh, .backingOff).isIdle(now: now))
        #expect(machine(.fresh, .backingOff).isIdle(now: now.addingTimeInterval(2)))
    }
}

@Suite("Cache hints")
struct CacheHintTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = CachePolicy(ttl: 60, staleWhileRevalidate: 60, staleIfError: 600)

    @Test func markStaleKeepsTheEntryAndRevalidates() {
        var machine = CacheEntryStateMachine(windows: policy.windows(fetchedAt: now.addingTimeInterval(-10)))
        machine.markStale(now: now)
        #expect(machine.windows?.phase(at: now) == .staleWhileRevalidate)
        #expect(machine.request(now: now, forceRefresh: false) == .serveStaleAndRevalidate(startFetch: true))
    }

    @Test func markStaleInTheStaleIfErrorWindowGivesAGraceToRevalidate() {
        var machine = CacheEntryStateMachine(windows: policy.windows(fetchedAt: now.addingTimeInterval(-300)))
        machine.markStale(now: now)
        #expect(machine.windows?.phase(at: now) == .staleWhileRevalidate)
        #expect(machine.windows?.expiresAt == policy.windows(fetchedAt: now.addingTimeInterval(-300)).expiresAt)
    }

    @Test func markStaleLeavesExpiredAndMissingEntriesAlone() {
        var expired = CacheEntryStateMachine(windows: policy.windows(fetchedAt: now.addingTimeInterval(-1000)))
        let before = expired
        expired.markStale(now: now)
        #expect(expired == before)
        var empty = CacheEntryStateMachine()
        empty.markStale(now: now)
        #expect(empty.windows == nil)
    }

    @Test func expireServesTheEntryWhileRevalidating() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        let feed = cache.store.changes.subscribe()
        await cache.store.expire(profile: "default", operation: "eightalls.events")
        var iterator = feed.makeAsyncIterator()
        #expect(
            await iterator.next() == CacheChange(kind: .invalidated, profile: "default", operation: "eightalls.events"))
        let stale = await cache.lookup()
        #expect(stale.outcome == .staleRevalidating)
        #expect(stale.body == Data("[1]".utf8))
        try await waitUntil { await cache.lookup().outcome == .fresh }
        #expect(await cache.lookup().body == Data("[2]".utf8))
        #expect(await iterator.next() == CacheChange(kind: .updated, profile: "default", operation: "eightalls.events"))
    }
}
