import Foundation
import Model

/// What a lookup answered, and why.
public struct CacheLookupResult: Sendable {
    public enum Outcome: String, Sendable {
        /// Fresh entry served from the cache.
        case fresh
        /// Nothing usable was cached: fetched for this request.
        case miss
        /// Forced refetch (`no-cache`) that succeeded.
        case refreshed
        /// Past freshness, inside stale-while-revalidate: served, refresh running.
        case staleRevalidating
        /// The backend failed (now or recently): the last good entry served.
        case staleAfterError
        /// The deadline passed before the backend answered: the last good entry served.
        case staleAfterTimeout
        /// The backend failed and nothing usable was cached.
        case failed
        /// The deadline passed and nothing usable was cached.
        case timedOut
    }

    public var outcome: Outcome
    public var value: CacheValue?
    public var body: Data? { value?.body }
    public var windows: EntryWindows?
    public var error: ErrorDetail?
    /// True when this request joined a fetch another request had started.
    public var collapsed: Bool

    public init(
        outcome: Outcome, value: CacheValue? = nil, windows: EntryWindows? = nil, error: ErrorDetail? = nil,
        collapsed: Bool = false
    ) {
        self.outcome = outcome
        self.value = value
        self.windows = windows
        self.error = error
        self.collapsed = collapsed
    }
}

/// Running totals of what the cache did, for /v1/sources and /metrics.
public struct CacheCounters: Sendable, Codable, Equatable {
    public var hits = 0
    public var misses = 0
    public var staleServes = 0
    public var collapsed = 0
    public var fetches = 0
    public var fetchFailures = 0
    public var timeouts = 0

    public init() {}

    /// One thing the cache did.
    public enum Event: String, Sendable, CaseIterable {
        case hits, misses, staleServes, collapsed, fetches, fetchFailures, timeouts

        /// The Prometheus counter it increments.
        public var metricName: String {
            switch self {
            case .hits: "daygate_cache_hits_total"
            case .misses: "daygate_cache_misses_total"
            case .staleServes: "daygate_cache_stale_serves_total"
            case .collapsed: "daygate_cache_collapsed_total"
            case .fetches: "daygate_cache_fetches_total"
            case .fetchFailures: "daygate_cache_fetch_failures_total"
            case .timeouts: "daygate_cache_timeouts_total"
            }
        }
    }

    public mutating func count(_ event: Event) {
        switch event {
        case .hits: hits += 1
        case .misses: misses += 1
        case .staleServes: staleServes += 1
        case .collapsed: collapsed += 1
        case .fetches: fetches += 1
        case .fetchFailures: fetchFailures += 1
        case .timeouts: timeouts += 1
        }
    }

    public mutating func add(_ other: CacheCounters) {
        hits += other.hits
        misses += other.misses
        staleServes += other.staleServes
        collapsed += other.collapsed
        fetches += other.fetches
        fetchFailures += other.fetchFailures
        timeouts += other.timeouts
    }
}
