import Cache
import Foundation
import Testing

@testable import Aggregation

/// How long a composed answer stays byte-for-byte the same (`Aggregator.nextTick`): until the
/// first whole-second tick of a section's age or remaining freshness, never past its phase.
struct AnswerReuseTests {
    let start = Date(timeIntervalSince1970: 1_795_000_000)

    func windows(fresh seconds: Double) -> EntryWindows {
        EntryWindows(
            fetchedAt: start, freshUntil: start.addingTimeInterval(seconds),
            revalidateUntil: start.addingTimeInterval(seconds + 30), expiresAt: start.addingTimeInterval(seconds + 3600)
        )
    }

    @Test func reusableUntilTheNextWholeSecondOfAgeOrFreshness() {
        let entry = windows(fresh: 60)
        // 2.3 s old, 57.7 s left: age turns 3 and "57 s left" turns 56 at the same instant.
        #expect(Aggregator.nextTick(entry, after: start.addingTimeInterval(2.3)) == start.addingTimeInterval(3))
        // Read exactly at the fetch: "60 s left" becomes 59 at once, so nothing is reusable.
        #expect(Aggregator.nextTick(entry, after: start) == start)
    }

    @Test func neverPastTheEndOfFreshness() {
        let entry = windows(fresh: 0.5)
        #expect(Aggregator.nextTick(entry, after: start.addingTimeInterval(0.2)) == start.addingTimeInterval(0.5))
    }

    /// A stale entry being refreshed: its age and its negative remaining freshness (shown as
    /// `ttl=-6`) tick on whole seconds too, and the answer ends with stale-while-revalidate.
    @Test func aStaleEntryTicksOnItsSecondsAndEndsWithItsRevalidationWindow() {
        let entry = windows(fresh: 60)  // stale from 60 s, revalidated until 90 s
        #expect(Aggregator.nextTick(entry, after: start.addingTimeInterval(65.3)) == start.addingTimeInterval(66))
        let shortWindow = EntryWindows(
            fetchedAt: start, freshUntil: start.addingTimeInterval(60),
            revalidateUntil: start.addingTimeInterval(89.5), expiresAt: start.addingTimeInterval(3600)
        )
        #expect(
            Aggregator.nextTick(shortWindow, after: start.addingTimeInterval(89.2)) == start.addingTimeInterval(89.5))
    }

    @Test func aFetchAtAnOddInstantTicksOnItsOwnSecond() {
        let entry = EntryWindows(
            fetchedAt: start.addingTimeInterval(0.75), freshUntil: start.addingTimeInterval(60.75),
            revalidateUntil: start.addingTimeInterval(90), expiresAt: start.addingTimeInterval(4000)
        )
        #expect(Aggregator.nextTick(entry, after: start.addingTimeInterval(10.1)) == start.addingTimeInterval(10.75))
    }
}
