import Foundation
import Model

/// Local wall times on the days around a seed day, as UTC instants: how every simulator turns its
/// seeded "Tuesday 18:30 at home" into what the server stores. Day arithmetic is Model's
/// (``Civil``, ``LocalDate``), the same the gateway uses.
struct SeedCalendar {
    /// The seed day as days since 1970-01-01.
    let seedDays: Int
    let timeZone: TimeZone

    init(seedDays: Int, timeZone: TimeZone) {
        self.seedDays = seedDays
        self.timeZone = timeZone
    }

    /// Nil when `seedDay` is not a strict `YYYY-MM-DD`.
    init?(seedDay: String, timeZone: TimeZone) {
        guard let day = LocalDate(seedDay) else { return nil }
        self.init(seedDays: day.dayNumber, timeZone: timeZone)
    }

    /// Seconds since 1970 of the local time `hour:minute:second` on seed day + `dayOffset`
    /// (Foundation's resolution of DST gaps and overlaps).
    func utcSeconds(_ dayOffset: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Int64 {
        let date = LocalDate(dayNumber: seedDays + dayOffset).date(
            hour: hour, minute: minute, second: second, in: timeZone)
        return Int64(date.timeIntervalSince1970.rounded())
    }

    /// ``utcSeconds(_:_:_:_:)`` of `hm` (hour, minute) in microseconds.
    func utcMicros(_ dayOffset: Int, _ hm: (Int, Int)) -> Int64 {
        utcSeconds(dayOffset, hm.0, hm.1) * Civil.microsPerSecond
    }
}
