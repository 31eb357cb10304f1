import Foundation
import ModelCore

/// The occurrences of a calendar over `[from, to)` local days, and what went wrong expanding them.
public struct ICSExpansion: Sendable {
    public let from: LocalDate
    public let to: LocalDate
    public let zone: TimeZone
    /// Every occurrence touching the range, sorted by start, then UID.
    public let occurrences: [ICSOccurrence]
    /// Expansion caps that were hit.
    public let issues: [ICSIssue]

    public init(from: LocalDate, to: LocalDate, zone: TimeZone, occurrences: [ICSOccurrence], issues: [ICSIssue]) {
        self.from = from
        self.to = to
        self.zone = zone
        self.occurrences = occurrences
        self.issues = issues
    }

    /// Each local day of the range with the occurrences that overlap it: an event crossing
    /// midnight (or a DST change) belongs to every day it touches.
    public var days: [ICSDay] {
        var days: [ICSDay] = []
        var day = from
        while day < to {
            let next = day.adding(days: 1)
            let instants = day.start(in: zone)..<next.start(in: zone)
            days.append(
                ICSDay(
                    date: day, occurrences: occurrences.filter { $0.overlaps(from: day, to: next, instants: instants) })
            )
            day = next
        }
        return days
    }
}
