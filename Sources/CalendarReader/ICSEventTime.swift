import Foundation
import ModelCore

/// A DTSTART, DTEND, RECURRENCE-ID, RDATE or EXDATE value once its zone is known: a whole
/// day (VALUE=DATE), or a wall-clock time on a clock (UTC for `Z`, the household zone for a
/// floating time, the TZID's zone otherwise).
public enum ICSEventTime: Sendable, Equatable {
    case date(LocalDate)
    case dateTime(ICSLocalDateTime, ICSZone)

    /// Whether this is a whole day.
    public var isDate: Bool {
        if case .date = self { return true }
        return false
    }

    /// The instant: the wall clock read in its zone, or local midnight in `household` for a day.
    public func instant(household: TimeZone) -> Date {
        switch self {
        case .date(let date): return date.start(in: household)
        case .dateTime(let wall, let zone): return zone.instant(of: wall)
        }
    }

    /// The wall clock this value shows on `zone`'s clock (a day is its midnight).
    public func wall(on zone: ICSZone) -> ICSLocalDateTime {
        switch self {
        case .date(let date): return ICSLocalDateTime(date)
        case .dateTime(let wall, let own):
            return own == zone ? wall : zone.wall(at: own.instant(of: wall))
        }
    }
}
