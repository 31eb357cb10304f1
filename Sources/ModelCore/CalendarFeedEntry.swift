import Foundation

/// One VEVENT of the household's calendar feed (`/v1/calendar.ics`): an event, a planned task,
/// a blocked slot or a club shift. `uid` is stable for the same item across fetches, so an edit
/// in a backend updates the entry on the phone instead of adding another.
public struct CalendarFeedEntry: Sendable, Hashable {
    public enum Time: Sendable, Hashable {
        /// From `start` to `end` (instants; written in the household's zone).
        case instants(start: Date, end: Date)
        /// Whole days `first` up to, not including, `end`.
        case days(first: LocalDate, end: LocalDate)
    }

    public var uid: String
    public var summary: String
    public var time: Time
    public var location: String?
    public var description: String?
    public var categories: [String]
    /// `CONFIRMED`, `TENTATIVE` or `CANCELLED`; nil when the source does not say.
    public var status: String?

    public init(
        uid: String, summary: String, time: Time, location: String? = nil, description: String? = nil,
        categories: [String] = [], status: String? = nil
    ) {
        self.uid = uid
        self.summary = summary
        self.time = time
        self.location = location
        self.description = description
        self.categories = categories
        self.status = status
    }

    /// The first instant of the entry in `zone` (for ordering).
    public func start(in zone: TimeZone) -> Date {
        switch time {
        case .instants(let start, _): start
        case .days(let first, _): first.start(in: zone)
        }
    }
}
