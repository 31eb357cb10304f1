import Foundation
import Model
import Testing

@testable import Backends

/// Which PRSNL items are the account's: the walk over its timeline, without sockets.
@Suite("PRSNL owned results")
struct PRSNLOwnedResultsTests {
    /// `2026-11-23T10:00:00` plus `micros` microseconds, as PRSNL's search answers it.
    static func time(_ micros: Int) -> String {
        Civil.isoString(PRSNLCursor.micros("2026-11-23T10:00:00Z")! + Int64(micros)) + "+00:00"
    }

    /// A full timeline page: `count` rows from `start` down, one microsecond apart, or all at
    /// `start` when `tied`.
    static func page(
        from start: Int, count: Int = PRSNLOwnedResults.pageSize, tied: Bool = false, listing: [(String, Int)] = []
    ) -> [(id: String, createdAt: String?)] {
        var rows = listing.map { (id: $0.0, createdAt: Optional(time($0.1))) }
        while rows.count < count {
            rows.append((id: "row-\(rows.count)", createdAt: time(tied ? start : start - rows.count)))
        }
        return rows.sorted { PRSNLCursor.micros($0.createdAt!)! > PRSNLCursor.micros($1.createdAt!)! }
    }

    @Test func aShortPageDecidesEverything() {
        var owned = PRSNLOwnedResults(items: [("MINE", Self.time(500)), ("theirs", Self.time(400))])
        #expect(owned.nextCursor() == "2026-11-23T10:00:00.000501Z", "just after the newest")
        owned.read(page: [("mine", Self.time(500)), ("other", Self.time(450))])
        #expect(owned.isOwn("mine") && owned.isOwn("Mine"))
        #expect(!owned.isOwn("theirs"))
        #expect(owned.isDone && owned.nextCursor() == nil && owned.reads == 1)
    }

    /// A full page decides what lies between its start and its last row; the next read starts
    /// just after the next undecided item, skipping the stretch between.
    @Test func aFullPageDecidesItsStretchAndTheWalkSkipsTheGap() {
        var owned = PRSNLOwnedResults(items: [
            ("a", Self.time(10_000)), ("b", Self.time(9_950)), ("c", Self.time(500)),
        ])
        _ = owned.nextCursor()
        owned.read(page: Self.page(from: 10_000, listing: [("a", 10_000)]))
        #expect(owned.isOwn("a") && !owned.isOwn("b") && !owned.isDone)
        #expect(owned.nextCursor() == "2026-11-23T10:00:00.000501Z")
        owned.read(page: Self.page(from: 500, count: 3, listing: [("c", 500)]))
        #expect(owned.isOwn("c") && owned.isDone && owned.reads == 2)
    }

    /// Items sharing the page's last microsecond (a bulk import) stay undecided: the rest of
    /// their group is on the next page, which starts just after them.
    @Test func aTieAtThePagesEndIsReadAgainFromItsStart() {
        var owned = PRSNLOwnedResults(items: [("new", Self.time(9_000)), ("tied", Self.time(100))])
        _ = owned.nextCursor()
        // 99 rows down to 101, then one row at 100 (not "tied"): the page is full.
        var first = Self.page(from: 9_000, count: 99, listing: [("new", 9_000)])
        first.append((id: "other-at-100", createdAt: Self.time(100)))
        owned.read(page: first)
        #expect(owned.isOwn("new") && !owned.isOwn("tied") && !owned.isDone)
        #expect(owned.nextCursor() == "2026-11-23T10:00:00.000101Z")
        owned.read(page: [("other-at-100", Self.time(100)), ("tied", Self.time(100))])
        #expect(owned.isOwn("tied") && owned.isDone)
    }

    /// A page of 100 rows in one microsecond cannot be paged past: the walk stops rather than
    /// read it again, and what it could not see is not shown.
    @Test func aPageWithoutProgressEndsTheWalk() {
        var owned = PRSNLOwnedResults(items: [("lost", Self.time(100))])
        _ = owned.nextCursor()
        owned.read(page: Self.page(from: 100, tied: true))
        #expect(owned.nextCursor() == nil)
        #expect(!owned.isOwn("lost") && owned.reads == 1)
    }

    @Test func theWalkIsBoundedAndAnItemWithoutATimeIsNeverOwn() {
        var owned = PRSNLOwnedResults(
            items: (0..<20).map { ("i\($0)", Self.time(100_000 - $0 * 1_000)) } + [("timeless", nil)],
            maximumReads: 3)
        var reads = 0
        while let cursor = owned.nextCursor() {
            reads += 1
            let start = PRSNLCursor.micros(cursor)! - PRSNLCursor.micros("2026-11-23T10:00:00Z")! - 1
            owned.read(page: Self.page(from: Int(start)))
        }
        #expect(reads == 3 && owned.reads == 3)
        #expect(!owned.isDone)
        #expect(!owned.isOwn("timeless"))
    }
}
