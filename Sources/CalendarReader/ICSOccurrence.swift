import Foundation
import ModelCore

/// One instance of an event, in real time.
public struct ICSOccurrence: Sendable, Equatable {
    public var uid: String
    public var summary: String?
    public var location: String?
    public var description: String?
    /// The first instant (local midnight of the first day for an all-day event).
    public var start: Date
    /// The instant it ends (exclusive; local midnight after the last day for an all-day event).
    public var end: Date
    public var isAllDay: Bool
    /// For an all-day event: its days, `[startDate, endDate)`.
    public var startDate: LocalDate?
    public var endDate: LocalDate?
    /// For an instance of a recurring event: the start it has in the series (before any override moved it).
    public var recurrenceID: Date?

    public init(
        uid: String, summary: String? = nil, location: String? = nil, description: String? = nil, start: Date,
        end: Date, isAllDay: Bool = false, startDate: LocalDate? = nil, endDate: LocalDate? = nil,
        recurrenceID: Date? = nil
    ) {
        self.uid = uid
        self.summary = summary
        self.location = location
        self.description = description
        self.start = start
        self.end = end
        self.isAllDay = isAllDay
        self.startDate = startDate
        self.endDate = endDate
        self.recurrenceID = recurrenceID
    }

    /// Whether the occurrence belongs to `[from, to)` of `zone`'s days: all-day events by their
    /// dates, timed events when they overlap (an instant event by its start).
    public func overlaps(from: LocalDate, to: LocalDate, in zone: TimeZone) -> Bool {
        overlaps(from: from, to: to, instants: from.start(in: zone)..<to.start(in: zone))
    }

    /// As `overlaps(from:to:in:)`, with the instants of `[from, to)` already worked out.
    public func overlaps(from: LocalDate, to: LocalDate, instants: Range<Date>) -> Bool {
        if isAllDay, let startDate, let endDate { return startDate < to && endDate > from }
        if start == end { return instants.contains(start) }
        return start < instants.upperBound && end > instants.lowerBound
    }

    /// Whether the occurrence belongs to the local day `day` of `zone`.
    public func overlaps(day: LocalDate, in zone: TimeZone) -> Bool {
        overlaps(from: day, to: day.adding(days: 1), in: zone)
    }
}
