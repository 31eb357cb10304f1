import Foundation
import Model
import Testing

@testable import Backends

/// Timeline pages that never end inside a group of items saved in one microsecond, without sockets.
@Suite("PRSNL timeline ties")
struct PRSNLTimelineTiesTests {
    /// A PRSNL answer with rows at these microseconds past 10:00 (newest first) and PRSNL's own
    /// `next_cursor` when the answer is full.
    static func answer(_ micros: [Int], asked: Int) -> JSONValue {
        let rows = micros.enumerated().map { index, micro -> JSONValue in
            .object(["id": .string("i\(index)"), "createdAt": .string(time(micro, "Z"))])
        }
        let next: JSONValue = micros.count == asked ? .string(time(micros.last!, "+00:00")) : .null
        return .object(["items": .array(rows), "next_cursor": next])
    }

    static func time(_ micro: Int, _ zone: String) -> String {
        Civil.isoString(PRSNLCursor.micros("2026-11-23T10:00:00Z")! + Int64(micro)) + zone
    }

    static func ids(_ page: PRSNLTimelineTies.Page) -> [String] {
        page.rows.compactMap { $0["id"]?.stringValue }
    }

    @Test func oneRowMoreIsAskedUpToPRSNLsLargestPage() {
        #expect(PRSNLTimelineTies.upstreamLimit(for: 10) == 11)
        #expect(PRSNLTimelineTies.upstreamLimit(for: 99) == 100)
        #expect(PRSNLTimelineTies.upstreamLimit(for: 100) == 100)
    }

    @Test func aShortAnswerIsTheLastPage() {
        let page = PRSNLTimelineTies.page(Self.answer([50, 40, 30], asked: 5), limit: 4)
        #expect(Self.ids(page) == ["i0", "i1", "i2"] && page.nextCursor == nil)
        // Exactly `limit` rows and no row beyond them: the last page too.
        let exact = PRSNLTimelineTies.page(Self.answer([50, 40, 30, 20], asked: 5), limit: 4)
        #expect(Self.ids(exact) == ["i0", "i1", "i2", "i3"] && exact.nextCursor == nil)
    }

    /// The row beyond the page is older than its last: the page is whole, and the next starts
    /// below its last row (PRSNL's own cursor).
    @Test func aPageWhoseLastMicrosecondIsCompleteIsWhole() {
        let page = PRSNLTimelineTies.page(Self.answer([50, 40, 30, 20, 10], asked: 5), limit: 4)
        #expect(Self.ids(page) == ["i0", "i1", "i2", "i3"])
        #expect(page.nextCursor == Self.time(20, "Z"))
    }

    /// The row beyond the page shares the last row's microsecond: that group moves to the next
    /// page, which starts just after it.
    @Test func aGroupCutByThePageMovesToTheNextPage() {
        let page = PRSNLTimelineTies.page(Self.answer([50, 40, 20, 20, 20], asked: 5), limit: 4)
        #expect(Self.ids(page) == ["i0", "i1"])
        #expect(page.nextCursor == Self.time(21, "Z"))
        // At PRSNL's largest page there is no row to look at: the trailing group always moves.
        let full = PRSNLTimelineTies.page(Self.answer(Array((1...100).reversed()), asked: 100), limit: 100)
        #expect(full.rows.count == 99 && full.nextCursor == Self.time(2, "Z"))
    }

    /// A page that is one group is answered whole: no cursor reaches the rest of it.
    @Test func aPageOfOneGroupIsAnsweredWhole() {
        let page = PRSNLTimelineTies.page(Self.answer([20, 20, 20, 20, 20], asked: 5), limit: 4)
        #expect(Self.ids(page) == ["i0", "i1", "i2", "i3"])
        #expect(page.nextCursor == Self.time(20, "Z"))
    }
}
