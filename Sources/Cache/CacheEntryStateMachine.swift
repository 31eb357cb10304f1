import Foundation
import Model

/// The lifecycle of one cache key as a pure value: events in (a request, a fetch result, a
/// waiter's deadline), actions out. No I/O, no clock: the caller passes `now`. `CacheStore`
/// performs the actions.
///
/// Rules it encodes:
/// - a fresh entry is served; a request with `forceRefresh` (Cache-Control: no-cache) refetches;
/// - in the stale-while-revalidate window the entry is served and one background fetch starts;
/// - with no usable entry (or forced) the request waits for the one fetch in flight (single-flight);
/// - a failed fetch never removes the entry: waiters get it as stale with the error if it is
///   still inside its stale-if-error window, else the error; a still-fresh entry whose refetch
///   failed is fresh no more (the backend is known to be failing);
/// - after a failure the key backs off (1 s doubling to 30 s, or the upstream's Retry-After):
///   no fetch starts until then, requests get the stale entry or the last error at once;
/// - after the backoff, while the backend is known to be failing (the last fetch failed), a
///   request with an entry in its stale-if-error window gets it at once with the last error and
///   one background fetch tries again: nobody waits out a deadline for a backend that failed
///   last time (a forced refresh still waits);
/// - an invalidation (a write changed the data) drops the entry; an expiry (a backend's hint)
///   ends its freshness but keeps it;
/// - a fetch in flight when either happens is overtaken: what it brings may predate the
///   change, so it goes only to the waiters that asked before the change and is not kept as
///   fresh (after an invalidation not kept at all, after an expiry kept as stale); waiters
///   that asked after the change wait for a new fetch.
///
/// The caller numbers its waiters in the order they ask (1, 2, …); events that change the
/// data take the number the next waiter will get (`firstWaiterAfter`), so that a completed
/// fetch can say who asked before the change.
public struct CacheEntryStateMachine: Sendable, Equatable {
    /// The entry's windows; nil when there is no entry (never fetched, or invalidated).
    public private(set) var windows: EntryWindows?
    /// Whether a fetch is on its way.
    public private(set) var fetchInFlight = false
    /// Failures since the last success.
    public private(set) var consecutiveFailures = 0
    /// No fetch starts before this (backoff after a failure).
    public private(set) var retryNotBefore: Date?
    /// The last failure, answered while backing off.
    public private(set) var lastError: ErrorDetail?
    /// The change that overtook the fetch in flight, if one did.
    public private(set) var overtaking: Overtaking?

    /// A change to the data behind the key that happened while a fetch was on its way.
    public struct Overtaking: Sendable, Equatable {
        /// What the change was.
        public enum Reason: String, Sendable, Equatable {
            /// A write changed the data: the entry was dropped.
            case invalidated
            /// A backend hinted that the data changed: the entry's freshness ended.
            case expired
        }

        /// What the change was (an invalidation outranks an expiry).
        public var reason: Reason
        /// Waiters numbered this or later asked after the change.
        public var firstWaiterAfter: UInt64

        /// A change for `reason`, after which the caller's waiters are numbered from `firstWaiterAfter`.
        public init(reason: Reason, firstWaiterAfter: UInt64) {
            self.reason = reason
            self.firstWaiterAfter = firstWaiterAfter
        }
    }

    /// The wait after a first failure (it doubles with each further one).
    public static let initialBackoff: TimeInterval = 1
    /// The longest wait after failures (unless the upstream's Retry-After asks for more).
    public static let maximumBackoff: TimeInterval = 30

    /// A key with no fetch, no failures, and the entry of `windows` (none when nil).
    public init(windows: EntryWindows? = nil) {
        self.windows = windows
    }

    /// What the caller does with a request.
    public enum RequestAction: Sendable, Equatable {
        /// Serve the entry as fresh.
        case serveFresh
        /// Serve the entry as stale at once; start a background fetch when `startFetch`.
        case serveStaleAndRevalidate(startFetch: Bool)
        /// Wait for the fetch; start it when `startFetch` (otherwise one is in flight: collapsed).
        case waitForFetch(startFetch: Bool)
        /// Backing off after a failure: serve the entry as stale with this error.
        case serveStale(ErrorDetail)
        /// The last fetch failed and the backoff is over: serve the entry as stale with this
        /// error at once; start a background fetch when `startFetch` (otherwise one is in flight).
        case serveStaleAndRetry(ErrorDetail, startFetch: Bool)
        /// Backing off after a failure and nothing to serve: answer this error.
        case fail(ErrorDetail)
    }

    /// A request for the key; `forceRefresh` skips a fresh entry (Cache-Control: no-cache).
    public mutating func request(now: Date, forceRefresh: Bool) -> RequestAction {
        let phase = windows?.phase(at: now) ?? .expired
        if phase == .fresh, !forceRefresh {
            return .serveFresh
        }
        if let retryNotBefore, now < retryNotBefore, !fetchInFlight {
            let error = lastError ?? ErrorDetail(code: "upstream_error", message: "backend failed recently")
            return phase == .expired ? .fail(error) : .serveStale(error)
        }
        let startFetch = !fetchInFlight
        fetchInFlight = true
        if phase == .staleWhileRevalidate, !forceRefresh {
            return .serveStaleAndRevalidate(startFetch: startFetch)
        }
        if phase == .staleIfError, !forceRefresh, consecutiveFailures > 0, let lastError {
            return .serveStaleAndRetry(lastError, startFetch: startFetch)
        }
        return .waitForFetch(startFetch: startFetch)
    }

    /// What the caller does with the data a fetch brought.
    public enum FetchSuccessAction: Sendable, Equatable {
        /// Store the new entry and give it to every waiter.
        case storeAndResumeWaiters(EntryWindows)
        /// A change overtook the fetch: what it brought goes to the waiters numbered below
        /// `firstWaiterAfter`; later waiters need a new fetch. `actions` say what becomes of
        /// the entry: after an invalidation `dropFromMemory` and `deleteRow` (it is not kept),
        /// after an expiry `republish` with stale windows.
        case resumeEarlierWaiters(firstWaiterAfter: UInt64, actions: [ChangeAction])
    }

    /// A fetch brought data fetched under `newWindows`.
    /// - Parameter now: when it arrived (for an overtaken fetch's stale windows); the fetch
    ///   time by default.
    public mutating func fetchSucceeded(windows newWindows: EntryWindows, now: Date? = nil) -> FetchSuccessAction {
        let overtaking = self.overtaking
        windows = newWindows
        fetchInFlight = false
        consecutiveFailures = 0
        retryNotBefore = nil
        lastError = nil
        self.overtaking = nil
        guard let overtaking else { return .storeAndResumeWaiters(newWindows) }
        switch overtaking.reason {
        case .invalidated:
            self = CacheEntryStateMachine()
            return .resumeEarlierWaiters(
                firstWaiterAfter: overtaking.firstWaiterAfter, actions: [.dropFromMemory, .deleteRow])
        case .expired:
            markStale(now: now ?? newWindows.fetchedAt)
            return .resumeEarlierWaiters(
                firstWaiterAfter: overtaking.firstWaiterAfter, actions: windows.map { [.republish($0)] } ?? [])
        }
    }

    /// What the caller does after a failed fetch.
    public enum FetchFailureAction: Sendable, Equatable {
        /// Waiters get the (unchanged) entry as stale, with the error.
        case resumeWaitersWithStale(ErrorDetail)
        /// Waiters get the error: nothing usable to serve.
        case resumeWaitersWithError(ErrorDetail)
    }

    /// The fetch failed with `error`: the key backs off (longer when the upstream said
    /// `retryAfter`); the entry, if any, is kept, and its freshness ends if it had any left
    /// (the caller republishes `windows`).
    public mutating func fetchFailed(now: Date, error: ErrorDetail, retryAfter: TimeInterval? = nil)
        -> FetchFailureAction
    {
        fetchInFlight = false
        overtaking = nil
        consecutiveFailures += 1
        lastError = error
        let backoff = min(Self.maximumBackoff, Self.initialBackoff * pow(2, Double(consecutiveFailures - 1)))
        retryNotBefore = now.addingTimeInterval(max(backoff, retryAfter ?? 0))
        // A refetch (Refresh) of a still-fresh entry failed: the backend is failing now, so the
        // copy is no longer vouched for. It is served as stale with the error until a fetch
        // succeeds, rather than as fresh again to the next request.
        if let windows, windows.phase(at: now) == .fresh {
            markStale(now: now)
        }
        if let windows, windows.phase(at: now) != .expired {
            return .resumeWaitersWithStale(error)
        }
        return .resumeWaitersWithError(error)
    }

    /// What the caller does for a waiter whose deadline passed.
    public enum DeadlineAction: Sendable, Equatable {
        /// The waiter gets the entry as stale; the fetch goes on and fills the cache.
        case serveStale
        /// The waiter gets a timeout; the fetch goes on and fills the cache.
        case timeout
    }

    /// A waiter's deadline passed before the fetch finished. The fetch is not cancelled.
    public func deadlineReached(now: Date) -> DeadlineAction {
        if let windows, windows.phase(at: now) != .expired {
            return .serveStale
        }
        return .timeout
    }

    /// The backend hinted that the data changed: freshness ends now, the entry is kept, and
    /// the next request serves it while revalidating (for at least `grace` seconds) — so a
    /// hint never costs the stale-if-error copy.
    public mutating func markStale(now: Date, grace: TimeInterval = 60) {
        guard var windows, windows.phase(at: now) != .expired else { return }
        windows.freshUntil = min(windows.freshUntil, now)
        windows.revalidateUntil = max(windows.revalidateUntil, min(now.addingTimeInterval(grace), windows.expiresAt))
        self.windows = windows
    }

    /// What the caller does after a change to the data behind the key.
    public enum ChangeAction: Sendable, Equatable {
        /// Remove the entry's body from the memory tier.
        case dropFromMemory
        /// Delete the entry's SQLite row, and read it no more until it is gone.
        case deleteRow
        /// The fetch in flight was overtaken by the change (for the reason given, which may be
        /// an earlier invalidation): what it brings is not kept as fresh.
        case markOvertaken(Overtaking.Reason)
        /// Keep the entry's body in memory under these (stale) windows. After an expiry the
        /// body is the one already in memory, if any, and live clients are told it changed;
        /// after an overtaken fetch it is what the fetch brought.
        case republish(EntryWindows)
        /// Nothing is left to remember about the key: the caller may drop this machine.
        case forgetMachine
    }

    /// The entry was invalidated (a write changed the data behind it): nothing is served from
    /// it any more, so the next request waits for a fetch. A fetch in flight stays in flight
    /// (its waiters are still owed an answer) but is overtaken.
    /// - Parameter firstWaiterAfter: the number the caller's next waiter will get.
    public mutating func invalidate(firstWaiterAfter: UInt64) -> [ChangeAction] {
        guard fetchInFlight else {
            self = CacheEntryStateMachine()
            return [.dropFromMemory, .deleteRow, .forgetMachine]
        }
        windows = nil
        let reason = overtake(.invalidated, firstWaiterAfter: firstWaiterAfter)
        return [.dropFromMemory, .deleteRow, .markOvertaken(reason)]
    }

    /// The backend hinted that the data changed: freshness ends now (`markStale`), the entry is
    /// kept. A fetch in flight is overtaken: what it brings is kept only as stale.
    /// - Parameter firstWaiterAfter: the number the caller's next waiter will get.
    public mutating func expire(now: Date, firstWaiterAfter: UInt64, grace: TimeInterval = 60) -> [ChangeAction] {
        var actions: [ChangeAction] = []
        if fetchInFlight {
            actions.append(.markOvertaken(overtake(.expired, firstWaiterAfter: firstWaiterAfter)))
        }
        markStale(now: now, grace: grace)
        if let windows { actions.append(.republish(windows)) }
        return actions
    }

    /// The entry's body was in neither tier although this machine had windows for it (evicted
    /// for size): start over as for a cold key. (A fresh entry is never overtaken — a change
    /// ends its freshness — so nothing about a fetch in flight is lost here.)
    public mutating func entryLost() {
        self = CacheEntryStateMachine()
    }

    /// Records that `reason` overtook the fetch in flight (an invalidation is never downgraded
    /// to an expiry); returns the reason that stands.
    private mutating func overtake(_ reason: Overtaking.Reason, firstWaiterAfter: UInt64) -> Overtaking.Reason {
        if let overtaking, overtaking.reason == .invalidated { return .invalidated }
        overtaking = Overtaking(reason: reason, firstWaiterAfter: firstWaiterAfter)
        return reason
    }

    /// True when nothing refers to this state any more: no fetch, no backoff to remember.
    public func isIdle(now: Date) -> Bool {
        !fetchInFlight && (retryNotBefore.map { now >= $0 } ?? true)
    }
}
