import CalendarReader
import Foundation
import Model
import Testing

@testable import Backends

/// A calendar's copy expanded over a range is expanded once while the copy stays the same: a
/// refetch of `ics.events` between two fetches of the feed reuses the events.
@Suite("ICS expansion memo")
struct ICSExpansionMemoTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let from = LocalDate("2026-11-23")!
    static let to = LocalDate("2026-11-30")!

    static func feed(_ summary: String, weekly count: Int = 3) throws -> ICSCalendar {
        try ICSCalendar(
            text: """
                BEGIN:VCALENDAR\r
                VERSION:2.0\r
                BEGIN:VEVENT\r
                UID:gym@school\r
                DTSTART;TZID=Europe/Amsterdam:20261124T083000\r
                DTEND;TZID=Europe/Amsterdam:20261124T091500\r
                RRULE:FREQ=DAILY;COUNT=\(count)\r
                SUMMARY:\(summary)\r
                END:VEVENT\r
                END:VCALENDAR\r

                """, household: zone)
    }

    static func copy(_ feed: ICSCalendar, changedAt: Date) -> ICSFeedCopy {
        ICSFeedCopy(
            calendar: .success(feed), byteCount: 100, etag: nil, lastModified: nil, fileModified: nil,
            checkedAt: changedAt, changedAt: changedAt, digest: 42)
    }

    static func expand(
        _ feed: ICSCalendar, copy: ICSFeedCopy, memo: ICSExpansionMemo, limits: ICSLimits = .standard,
        budget: ICSWorkBudget = ICSWorkBudget()
    ) -> ICSExpansionMemo.Expansion {
        ICSEventsOperation.expansion(
            of: feed, copy: copy, calendar: ICSSettings.Calendar(name: "school", url: "/school.ics", color: "#2e7d32"),
            from: from, to: to, zone: zone, limits: limits, budget: budget, memo: memo)
    }

    @Test func theSameCopyOverTheSameRangeIsExpandedOnce() throws {
        let memo = ICSExpansionMemo(maximumEvents: 1_000, maximumRanges: 8)
        let read = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try Self.feed("Gym")
        let events = Self.expand(first, copy: Self.copy(first, changedAt: read), memo: memo).events
        #expect(events.map(\.event.title) == ["Gym", "Gym", "Gym"])
        #expect(events.allSatisfy { $0.event.calendar == "school" && $0.event.color == "#2e7d32" })
        // The same copy (content and reading): its kept events, not an expansion of what is passed.
        let other = try Self.feed("Swimming")
        #expect(
            Self.expand(other, copy: Self.copy(other, changedAt: read), memo: memo).events.map(\.event)
                == events.map(\.event))
        // A copy read again is another copy.
        let again = Self.expand(other, copy: Self.copy(other, changedAt: read + 900), memo: memo)
        #expect(again.events.map(\.event.title) == ["Swimming", "Swimming", "Swimming"])
        #expect(memo.counts.ranges == 2)
    }

    @Test func anExpansionCutShortByCancellationIsNotKept() throws {
        let memo = ICSExpansionMemo(maximumEvents: 1_000, maximumRanges: 8)
        let feed = try Self.feed("Gym")
        let cancelled = ICSWorkBudget()
        cancelled.cancel()
        _ = Self.expand(feed, copy: Self.copy(feed, changedAt: Date()), memo: memo, budget: cancelled)
        #expect(memo.counts.ranges == 0)
    }

    /// A step limit stops the same expansion at the same place every time: that result is kept.
    @Test func anExpansionStoppedByItsInstanceLimitIsKept() throws {
        let memo = ICSExpansionMemo(maximumEvents: 1_000, maximumRanges: 8)
        let feed = try Self.feed("Gym", weekly: 7)
        var limits = ICSLimits.standard
        limits.maximumInstances = 2
        let stopped = Self.expand(feed, copy: Self.copy(feed, changedAt: Date()), memo: memo, limits: limits)
        #expect(stopped.events.count == 2)
        #expect(stopped.issues.contains { $0.kind == .limit })
        #expect(memo.counts == (ranges: 1, events: 2))
    }

    @Test func theLeastRecentlyUsedRangesGoFirstWithinTheBounds() {
        let memo = ICSExpansionMemo(maximumEvents: 10, maximumRanges: 3)
        func key(_ day: Int) -> ICSExpansionMemo.Key {
            ICSExpansionMemo.Key(
                digest: 1, byteCount: 1, changedAt: Date(timeIntervalSince1970: 0), calendar: "a", color: nil,
                from: LocalDate(year: 2026, month: 11, day: day), to: LocalDate(year: 2026, month: 11, day: day + 1),
                zone: "UTC", maximumInstances: 100)
        }
        func expansion(_ count: Int) -> ICSExpansionMemo.Expansion {
            let event = Event(
                id: "a:x:0", title: "x", description: nil, start: "2026-11-01", end: "2026-11-02", allDay: true,
                location: nil, status: "confirmed", type: nil, color: nil, tags: [], calendar: "a")
            return ICSExpansionMemo.Expansion(
                events: Array(repeating: (start: Date(), event: event), count: count), issues: [])
        }
        memo.keep(expansion(4), under: key(1))
        memo.keep(expansion(4), under: key(2))
        _ = memo.expansion(key(1))  // day 2 is now the least recently used
        memo.keep(expansion(4), under: key(3))  // 12 events > 10: day 2 goes
        #expect(memo.expansion(key(2)) == nil)
        #expect(memo.expansion(key(1)) != nil && memo.expansion(key(3)) != nil)
        #expect(memo.counts == (ranges: 2, events: 8))
        memo.keep(expansion(0), under: key(4))
        memo.keep(expansion(0), under: key(5))  // four ranges > 3: day 1 (used before day 3) goes
        #expect(memo.expansion(key(1)) == nil)
        #expect(memo.counts.ranges == 3)
        memo.keep(expansion(11), under: key(6))  // more than the whole memo holds: not kept
        #expect(memo.expansion(key(6)) == nil)
    }
}
