import Foundation
import Model

/// The household's local days `first`…`last` as FitIQ can be asked about them. FitIQ's dates
/// are UTC days (`date=`, `start_date`/`end_date`, `from`/`to` of its day-based lists), so a
/// local day west or east of UTC overlaps two of them: the gateway asks for every UTC day the
/// local days overlap and keeps only what happened within `[start, end)`.
struct FitIQDayWindow: Equatable {
    var first: LocalDate
    var last: LocalDate
    /// The first instant of `first` in the household's zone.
    var start: Date
    /// The first instant after `last` in the household's zone.
    var end: Date

    init(first: LocalDate, last: LocalDate, zone: TimeZone) {
        self.first = first
        self.last = last
        self.start = first.start(in: zone)
        self.end = last.adding(days: 1).start(in: zone)
    }

    init(day: LocalDate, zone: TimeZone) {
        self.init(first: day, last: day, zone: zone)
    }

    /// The first UTC day the window overlaps.
    var firstUTCDay: LocalDate { LocalDate(containing: start, in: .gmt) }

    /// The last UTC day the window overlaps.
    var lastUTCDay: LocalDate { LocalDate(containing: end.addingTimeInterval(-0.001), in: .gmt) }

    /// The `end_date` (or `to`) to ask FitIQ for: the day after the last UTC day the window
    /// overlaps. FitIQ's specification does not say whether its day ranges include their end
    /// day; asked one day further, both readings cover the window, and the gateway keeps only
    /// what happened within it.
    var queryEndDay: LocalDate { lastUTCDay.adding(days: 1) }

    func contains(_ instant: Date) -> Bool {
        start <= instant && instant < end
    }

    /// Whether the record's time (`text`, as FitIQ writes it) lies in the window; a record
    /// without a readable time is left out.
    func contains(time text: String?) -> Bool {
        guard let text, let instant = LenientDate.parse(text) else { return false }
        return contains(instant)
    }
}
