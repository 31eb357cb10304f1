import CalendarReader
import Foundation
import ModelCore

/// A subscribed calendar feed: read in one of three zones (west of UTC, east, and the other
/// side of the date line, chosen by the input's length, so that any .ics file is a seed as it is) and expanded over a few weeks around a fixed
/// day, as the events operation does. The expansion must stay within its bound.
public enum CalendarFuzzTarget {
    static let zones = ["Europe/Amsterdam", "America/New_York", "Pacific/Auckland"].compactMap {
        TimeZone(identifier: $0)
    }
    static let day = LocalDate(year: 2026, month: 3, day: 29)

    public static let target = FuzzTarget(name: "calendar") { bytes in
        let zone = zones[bytes.count % zones.count]
        guard let calendar = try? ICSCalendar(bytes: bytes, household: zone) else { return }
        let limits = ICSLimits.standard
        let expansion = calendar.expand(from: day.adding(days: -7), to: day.adding(days: 21), limits: limits)
        invariant(
            expansion.occurrences.count <= limits.maximumInstances,
            "\(expansion.occurrences.count) occurrences, past the feed's bound", target: "calendar")
    }
}
