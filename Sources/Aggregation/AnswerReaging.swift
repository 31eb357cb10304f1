import Cache
import Foundation

/// When a kept answer may be aged again instead of composed anew (`Aggregator.reaged`): a
/// section's lookup at the later moment would come out the same — the same outcome, the same
/// body — so only the figures that move with the clock change. Pure: the moments decide.
enum AnswerReaging {
    /// Whether a lookup of an entry with `windows`, whose outcome was `outcome`, would again
    /// have it at `at` (the cache's generation unchanged, which the caller checks): a fresh hit
    /// while `at` is still before the end of freshness; a stale serve with its refresh on the
    /// way while `at` is still within stale-while-revalidate (past it the refresh's result or a
    /// refetch decides). Nothing else is served from a kept answer.
    static func staysTheSame(_ outcome: CacheLookupResult.Outcome, windows: EntryWindows, at: Date) -> Bool {
        switch outcome {
        case .fresh: windows.phase(at: at) == .fresh
        case .staleRevalidating: windows.phase(at: at) == .staleWhileRevalidate
        case .miss, .refreshed, .staleAfterError, .staleAfterTimeout, .failed, .timedOut: false
        }
    }
}
