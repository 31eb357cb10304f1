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
///   still inside its stale-if-error window, else the error;
/// - after a failure the key backs off (1 s doubling to 30 s, or the upstream's Retry-After):
///   no fetch starts until then, requests get the stale entry or the last error at once.
public struct CacheEntryStateMachine: Sendable, Equatable {
    public private(set) var windows: EntryWindows?
    public private(set) var fetchInFlight = false
    public private(set) var consecutiveFailures = 0
    public private(set) var retryNotBefore: Date?
    public private(set) var lastError: ErrorDetail?

    public static let initialBackoff: TimeInterval = 1
    public static let maximumBackoff: TimeInterval = 30

    public init(windows: EntryWindows? = nil) {
        self.windows = windows
    }

    public enum RequestAction: Sendable, Equatable {
        /// Serve the entry as fresh.
        case serveFresh
        /// Serve the entry as stale at once; start a background fetch when `startFetch`.
        case serveStaleAndRevalidate(startFetch: Bool)
        /// Wait for the fetch; start it when `startFetch` (otherwise one is in flight: collapsed).
        case waitForFetch(startFetch: Bool)
        /// Backing off after a failure: serve the entry as stale with this error.
        case serveStale(ErrorDetail)
        /// Backing off after a failure and nothing to serve: answer this error.
        case fail(ErrorDetail)
    }

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
        return .waitForFetch(startFetch: startFetch)
    }

    public enum FetchSuccessAction: Sendable, Equatable {
        /// Store the new entry and give it to every waiter.
        case storeAndResumeWaiters(EntryWindows)
    }

    public mutating func fetchSucceeded(windows newWindows: EntryWindows) -> FetchSuccessAction {
        windows = newWindows
        fetchInFlight = false
        consecutiveFailures = 0
        retryNotBefore = nil
        lastError = nil
        return .storeAndResumeWaiters(newWindows)
    }

    public enum FetchFailureAction: Sendable, Equatable {
        /// Waiters get the (unchanged) entry as stale, with the error.
        case resumeWaitersWithStale(ErrorDetail)
        /// Waiters get the error: nothing usable to serve.
        case resumeWaitersWithError(ErrorDetail)
    }

    public mutating func fetchFailed(now: Date, error: ErrorDetail, retryAfter: TimeInterval? = nil)
        -> FetchFailureAction
    {
        fetchInFlight = false
        consecutiveFailures += 1
        lastError = error
        let backoff = min(Self.maximumBackoff, Self.initialBackoff * pow(2, Double(consecutiveFailures - 1)))
        retryNotBefore = now.addingTimeInterval(max(backoff, retryAfter ?? 0))
        if let windows, windows.phase(at: now) != .expired {
            return .resumeWaitersWithStale(error)
        }
        return .resumeWaitersWithError(error)
    }

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

    /// The entry was invalidated (a write changed the data behind it): nothing is served from
    /// it any more, so the next request waits for a fetch; a fetch in flight stays in flight.
    public mutating func forgetEntry() {
        windows = nil
    }

    /// True when nothing refers to this state any more: no fetch, no backoff to remember.
    public func isIdle(now: Date) -> Bool {
        !fetchInFlight && (retryNotBefore.map { now >= $0 } ?? true)
    }
}
