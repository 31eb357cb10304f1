import Foundation
import Model
import Testing

@testable import Backends

/// Which UTC days (FitIQ's) a local day overlaps, without sockets.
@Suite("FitIQ day window")
struct FitIQDayWindowTests {
    static func instant(_ text: String) -> Date { LenientDate.parse(text)! }

    @Test func westOfUTCTheDayEndsOnTheNextUTCDay() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        // Spring forward: 23 hours.
        let spring = FitIQDayWindow(day: LocalDate(year: 2026, month: 3, day: 8), zone: zone)
        #expect(spring.start == Self.instant("2026-03-08T05:00:00Z"))
        #expect(spring.end == Self.instant("2026-03-09T04:00:00Z"))
        #expect(spring.firstUTCDay == LocalDate(year: 2026, month: 3, day: 8))
        #expect(spring.lastUTCDay == LocalDate(year: 2026, month: 3, day: 9))
        #expect(spring.queryEndDay == LocalDate(year: 2026, month: 3, day: 10))
        // Fall back: 25 hours.
        let fall = FitIQDayWindow(day: LocalDate(year: 2026, month: 11, day: 1), zone: zone)
        #expect(fall.end.timeIntervalSince(fall.start) == 25 * 3600)
        #expect(fall.contains(Self.instant("2026-11-02T04:59:59Z")))
        #expect(!fall.contains(Self.instant("2026-11-02T05:00:00Z")))
        #expect(!fall.contains(Self.instant("2026-11-01T03:59:59Z")))
    }

    @Test func eastOfUTCTheDayStartsOnThePreviousUTCDay() throws {
        let zone = try #require(TimeZone(identifier: "Pacific/Auckland"))
        let ends = FitIQDayWindow(day: LocalDate(year: 2026, month: 4, day: 5), zone: zone)
        #expect(ends.start == Self.instant("2026-04-04T11:00:00Z"))
        #expect(ends.end == Self.instant("2026-04-05T12:00:00Z"))
        #expect(ends.firstUTCDay == LocalDate(year: 2026, month: 4, day: 4))
        #expect(ends.lastUTCDay == LocalDate(year: 2026, month: 4, day: 5))
        let starts = FitIQDayWindow(day: LocalDate(year: 2026, month: 9, day: 27), zone: zone)
        #expect(starts.end.timeIntervalSince(starts.start) == 23 * 3600)
        // Several days.
        let week = FitIQDayWindow(
            first: LocalDate(year: 2026, month: 9, day: 21), last: LocalDate(year: 2026, month: 9, day: 27), zone: zone)
        #expect(week.firstUTCDay == LocalDate(year: 2026, month: 9, day: 20))
        #expect(week.lastUTCDay == LocalDate(year: 2026, month: 9, day: 27))
    }

    /// FitIQ does not say whether `end_date` (and sleep's `to`) include their day: the gateway
    /// asks one day further, so both readings cover the local day.
    @Test func theEndAskedForIsTheDayAfterTheLastUTCDay() throws {
        let london = try #require(TimeZone(identifier: "Europe/London"))
        let winter = FitIQDayWindow(day: LocalDate(year: 2026, month: 1, day: 15), zone: london)
        #expect(winter.firstUTCDay == LocalDate(year: 2026, month: 1, day: 15))
        #expect(winter.lastUTCDay == LocalDate(year: 2026, month: 1, day: 15))
        #expect(winter.queryEndDay == LocalDate(year: 2026, month: 1, day: 16))
        let summer = FitIQDayWindow(day: LocalDate(year: 2026, month: 7, day: 15), zone: london)
        #expect(summer.firstUTCDay == LocalDate(year: 2026, month: 7, day: 14))
        #expect(summer.queryEndDay == LocalDate(year: 2026, month: 7, day: 16))
        #expect(!FitIQDayWindow(day: LocalDate(year: 2026, month: 7, day: 15), zone: .gmt).contains(time: "yesterday"))
    }

    @Test func pagesUntilFitIQHasNoMoreOrTheCap() {
        func items(_ count: Int, from first: Int = 0) -> [JSONValue] {
            (first..<(first + count)).map { .object(["id": .string("w\($0)")]) }
        }
        var paging = FitIQPaging(pageSize: 2, maximumItems: 5)
        #expect(paging.nextOffset == 0)
        paging.take(items(2), hasMore: true)
        #expect(paging.nextOffset == 2)
        paging.take(items(2, from: 2), hasMore: true)
        #expect(paging.nextOffset == 4)
        paging.take(items(2, from: 4), hasMore: true)
        #expect(paging.nextOffset == nil)
        #expect(paging.items.count == 5)
        #expect(paging.truncated)
        #expect(paging.issue("workouts")?.code == "truncated")

        var done = FitIQPaging(pageSize: 2, maximumItems: 5)
        done.take(items(2), hasMore: true)
        done.take(items(1, from: 2), hasMore: false)
        #expect(done.nextOffset == nil && !done.truncated && done.items.count == 3)
        #expect(done.issue("workouts") == nil)

        // Exactly the cap, and nothing more: not cut.
        var exact = FitIQPaging(pageSize: 5, maximumItems: 5)
        exact.take(items(5), hasMore: false)
        #expect(!exact.truncated && exact.nextOffset == nil)

        // A server that says has_more with an empty page does not keep the gateway asking.
        var empty = FitIQPaging(pageSize: 2, maximumItems: 5)
        empty.take([], hasMore: true)
        #expect(empty.nextOffset == nil && !empty.truncated)

        let page = FitIQPaging.page(
            .object(["workouts": .array(items(2)), "has_more": .bool(true)]), keys: ["workouts"])
        #expect(page.items.count == 2 && page.hasMore)
    }
}
