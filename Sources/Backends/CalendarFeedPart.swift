import Foundation
import Model

/// What one backend adds to `/v1/calendar.ics`: the sections the feed fetches for a window of
/// local days, and the feed entries it makes of their bodies. Calendar backends hand over
/// `Event`s and the core turns every calendar's events into entries the same way.
public protocol CalendarFeedPart: Sendable {
    func sections(for window: CalendarFeedWindow) -> [CalendarFeedSection]
    func contribution(_ input: CalendarFeedInput) -> CalendarFeedContribution
}

/// The local days a feed covers, and the household's today and zone.
public struct CalendarFeedWindow: Sendable, Hashable {
    public var from: LocalDate
    public var to: LocalDate
    public var today: LocalDate
    public var zone: TimeZone

    public init(from: LocalDate, to: LocalDate, today: LocalDate, zone: TimeZone) {
        self.from = from
        self.to = to
        self.today = today
        self.zone = zone
    }

    /// The days of the window, each once.
    public var days: [LocalDate] {
        from > to ? [] : (0...from.days(to: to)).map { from.adding(days: $0) }
    }
}

/// One section of the feed: an operation and its arguments (names unique across parts).
public struct CalendarFeedSection: Sendable, Hashable {
    public var name: String
    public var operation: String
    public var arguments: [String: ArgumentValue]

    public init(name: String, operation: String, arguments: [String: ArgumentValue]) {
        self.name = name
        self.operation = operation
        self.arguments = arguments
    }
}

/// What a part reads: the sections' bodies (absent when a section has none) and the window.
public struct CalendarFeedInput: Sendable {
    public var bodies: [String: Data]
    public var window: CalendarFeedWindow

    public init(bodies: [String: Data], window: CalendarFeedWindow) {
        self.bodies = bodies
        self.window = window
    }

    /// The body of `section` as `T`, nil when the section has no (readable) body.
    public func decode<T: Decodable>(_ type: T.Type, _ section: String) -> T? {
        bodies[section].flatMap { try? JSONCoding.decoder.decode(T.self, from: $0) }
    }
}

/// What a part adds: calendar events (the core makes entries of them, named after their
/// `source` when they have no calendar of their own) and entries of its own.
public struct CalendarFeedContribution: Sendable {
    public var events: [Event]
    /// Whose the events are; nil when there are none.
    public var source: CalendarFeedSource?
    public var entries: [CalendarFeedEntry]

    /// Events from `source` (and entries of the part's own).
    public init(events: [Event], from source: CalendarFeedSource, entries: [CalendarFeedEntry] = []) {
        self.events = events
        self.source = source
        self.entries = entries
    }

    /// Entries of the part's own, no events.
    public init(entries: [CalendarFeedEntry]) {
        self.events = []
        self.source = nil
        self.entries = entries
    }
}
