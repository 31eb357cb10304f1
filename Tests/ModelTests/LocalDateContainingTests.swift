import Foundation
import Model
import SeededRandom
import Testing

/// `LocalDate(containing:in:)` reads the zone's offset and counts days itself; its answer is the
/// Gregorian calendar's, west and east of UTC, around midnight, on both DST changes, and at the
/// ends of the range it counts (before it, the calendar is asked).
struct LocalDateContainingTests {
    static func calendarDay(_ instant: Date, _ zone: TimeZone) -> LocalDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    static let zones = [
        "UTC", "Europe/Amsterdam", "America/Los_Angeles", "Pacific/Kiritimati", "Pacific/Pago_Pago",
        "Asia/Kolkata", "Australia/Lord_Howe", "America/St_Johns",
    ].map { TimeZone(identifier: $0)! }

    @Test func theDayIsTheCalendarsAtRandomInstants() {
        var rng = SplitMix64(seed: 0x10CA_1DA7E)
        for _ in 0..<20_000 {
            let zone = rng.pick(Self.zones)
            // 1600 to 2400, to the millisecond.
            let seconds = Double(Int64(rng.next() % 25_245_000_000_000)) / 1000 - 11_676_096_000
            let instant = Date(timeIntervalSince1970: seconds)
            #expect(LocalDate(containing: instant, in: zone) == Self.calendarDay(instant, zone), "\(instant) \(zone)")
        }
    }

    @Test func aroundMidnightAndBothDSTChanges() {
        let amsterdam = TimeZone(identifier: "Europe/Amsterdam")!
        let losAngeles = TimeZone(identifier: "America/Los_Angeles")!
        // 2026-03-29 02:00 and 2026-10-25 03:00 in Amsterdam; 2026-03-08 and 2026-11-01 in LA.
        let edges: [(String, TimeZone)] = [
            ("2026-03-28T23:00:00Z", amsterdam), ("2026-03-29T01:00:00Z", amsterdam),
            ("2026-10-24T22:00:00Z", amsterdam), ("2026-10-25T01:00:00Z", amsterdam),
            ("2026-10-25T23:00:00Z", amsterdam), ("2026-03-08T08:00:00Z", losAngeles),
            ("2026-03-09T07:00:00Z", losAngeles), ("2026-11-01T07:00:00Z", losAngeles),
            ("2026-11-02T08:00:00Z", losAngeles),
        ]
        // Before 1970 a fraction of a second rounds down, to the day before.
        let utc = TimeZone(identifier: "UTC")!
        #expect(
            LocalDate(containing: Date(timeIntervalSince1970: -0.5), in: utc)
                == LocalDate(year: 1969, month: 12, day: 31))
        for seconds in [-0.5, -0.001, -86_400.25, -1_000_000_000.75] {
            let instant = Date(timeIntervalSince1970: seconds)
            #expect(LocalDate(containing: instant, in: utc) == Self.calendarDay(instant, utc), "\(seconds)")
        }
        for (text, zone) in edges {
            let edge = ISO8601DateFormatter().date(from: text)!
            for offset in [-1.0, -0.001, 0, 0.001, 1, 3599, 3600] {
                let instant = edge.addingTimeInterval(offset)
                #expect(
                    LocalDate(containing: instant, in: zone) == Self.calendarDay(instant, zone), "\(instant) \(zone)")
            }
        }
    }

    @Test func outsideTheCountedRangeTheCalendarAnswers() {
        for seconds in [-12_212_467_200.0, -12_212_467_201, -20_000_000_000, 253_402_214_400, 253_402_300_000] {
            let instant = Date(timeIntervalSince1970: seconds)
            for zone in Self.zones {
                #expect(
                    LocalDate(containing: instant, in: zone) == Self.calendarDay(instant, zone), "\(instant) \(zone)")
            }
        }
    }
}
