import Model

/// Calendar subscriptions (ICS feeds): read-only calendars fetched with conditional GET and
/// read by daygate's own RFC 5545 reader (see docs/backends/ics.md).
public struct ICSBackend: Backend {
    public typealias Settings = ICSSettings

    public init() {}

    public var operations: [any BackendOperation] {
        [ICSEventsOperation(), ICSCalendarsOperation()]
    }

    public var summaryPart: (any SummaryPart)? { ICSSummaryPart() }

    public var calendarFeedPart: (any CalendarFeedPart)? { ICSCalendarFeedPart() }

    public var sourcesPart: (any SourcesPart)? { ICSSourcesPart() }

    public var connector: (any BackendConnector)? { ICSConnect() }
}
