import CalendarReader
import Foundation
import Model
import Synchronization

/// The events one calendar's copy gave over one range, kept while that copy is unchanged: the
/// answer of `ics.events` is kept only a minute (so that days roll over on time) and a client
/// may ask with `no-cache`, but a feed is fetched again only every `refresh` (15 minutes by
/// default) — without this every refetch in between expanded the same copy into the same
/// events again.
///
/// - The key is everything the events depend on: the copy's content and when it was read
///   (digest, size, `changedAt`: a copy read again is another copy), the calendar's name and
///   colour (in every event), the range, the zone and the room the expansion had.
/// - Only expansions that ran to their own end or to a step or instance limit are kept (the
///   same copy gives the same events again); one a deadline or a cancellation cut short is not.
/// - At most `maximumEvents` events and `maximumRanges` ranges are kept, every calendar
///   together; the least recently used range goes first. A range with more events than that is
///   not kept.
final class ICSExpansionMemo: Sendable {
    static let shared = ICSExpansionMemo(maximumEvents: 5_000, maximumRanges: 64)

    struct Key: Hashable, Sendable {
        var digest: Int
        var byteCount: Int
        var changedAt: Date
        var calendar: String
        var color: String?
        var from: LocalDate
        var to: LocalDate
        var zone: String
        var maximumInstances: Int
    }

    /// One calendar's part of an answer: its events (with their starts, for ordering) and the
    /// issues its expansion found.
    struct Expansion: Sendable {
        var events: [(start: Date, event: Event)]
        var issues: [ICSIssue]
    }

    private struct State {
        var entries: [Key: (expansion: Expansion, used: UInt64)] = [:]
        var events = 0
        var clock: UInt64 = 0
    }

    let maximumEvents: Int
    let maximumRanges: Int
    private let state = Mutex(State())

    init(maximumEvents: Int, maximumRanges: Int) {
        precondition(maximumRanges > 0)
        self.maximumEvents = maximumEvents
        self.maximumRanges = maximumRanges
    }

    /// The expansion kept under `key`, if any (it becomes the most recently used).
    func expansion(_ key: Key) -> Expansion? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key]?.used = state.clock
            return entry.expansion
        }
    }

    /// Keeps `expansion` under `key`, dropping the least recently used ones to stay within
    /// `maximumEvents` and `maximumRanges`.
    func keep(_ expansion: Expansion, under key: Key) {
        let size = expansion.events.count
        guard size <= maximumEvents else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.events -= old.expansion.events.count }
            while state.events + size > maximumEvents || state.entries.count >= maximumRanges,
                let oldest = state.entries.min(by: { $0.value.used < $1.value.used })
            {
                state.entries[oldest.key] = nil
                state.events -= oldest.value.expansion.events.count
            }
            state.clock += 1
            state.entries[key] = (expansion, state.clock)
            state.events += size
        }
    }

    /// How many ranges and events are kept (for tests).
    var counts: (ranges: Int, events: Int) { state.withLock { ($0.entries.count, $0.events) } }
}
