import Backends
import Crypto
import Foundation
import Logging
import Model

/// Runs `/v1/calendar.ics` for a profile: the sections every backend's `CalendarFeedPart` asks
/// for over a window of local days (default: a week back, 60 days ahead), through the aggregator
/// and its cache, made into one RFC 5545 feed (`CalendarFeedWriter`).
public struct CalendarFeedService: Sendable {
    public static let path = "/v1/calendar.ics"
    public static let defaultDaysBack = 7
    public static let defaultDaysAhead = 60
    /// The longest window: 366 days, as `/v1/events`.
    public static let maximumDays = 366
    /// The query parameter that carries a feed key (calendar apps cannot send headers).
    public static let keyParameter = "key"

    public let aggregator: Aggregator
    let parts: [any CalendarFeedPart]
    let registry: OperationRegistry

    public init(
        aggregator: Aggregator, registry: OperationRegistry = .standard,
        parts: [any CalendarFeedPart] = BackendCatalog.calendarFeedParts
    ) {
        self.aggregator = aggregator
        self.registry = registry
        self.parts = parts
    }

    /// A feed: its text, a validator that ignores `DTSTAMP`, and what could not be read.
    public struct Feed: Sendable {
        public var text: String
        /// The opaque tag (`"…"`), equal for two feeds with the same entries (only their
        /// `DTSTAMP` differs): sent as a weak ETag.
        public var etag: String
        /// Sections that failed without a kept copy: their entries are missing.
        public var missing: [String: ErrorDetail]
        public var window: CalendarFeedWindow
    }

    /// The window asked by `query` (`from`, `to`; `key` and names starting with `_` are ignored).
    public static func window(query: [(String, String)], clock: RequestClock) throws(ErrorDetail) -> CalendarFeedWindow
    {
        let today = clock.today
        var from = today.adding(days: -defaultDaysBack)
        var to = today.adding(days: defaultDaysAhead)
        var seen: Set<String> = []
        for (name, value) in query {
            guard seen.insert(name).inserted else {
                throw .badParameter("\(RouteParameter.shown(name)) is given more than once")
            }
            switch name {
            case "from", "to":
                guard let day = LocalDate(value) else {
                    throw .badParameter("\(name) must be a date YYYY-MM-DD, not \"\(RouteParameter.shown(value))\"")
                }
                if name == "from" { from = day } else { to = day }
            case keyParameter:
                // Admission has judged it (or a client key came instead); a value that cannot be a
                // feed key is a mistake either way.
                guard value.unicodeScalars.count >= ClientConfig.minimumKeyLength else {
                    throw .badParameter("key is a feed key of at least \(ClientConfig.minimumKeyLength) characters")
                }
            case let other where other.hasPrefix("_"): continue
            default:
                throw .badParameter(
                    "unknown parameter \"\(RouteParameter.shown(name))\" for \(path) (it takes from, to and key)")
            }
        }
        guard from <= to else { throw .badParameter("from must not be after to") }
        guard from.days(to: to) < maximumDays else {
            throw .badParameter("a feed covers at most \(maximumDays) days")
        }
        return CalendarFeedWindow(from: from, to: to, today: today, zone: clock.timeZone)
    }

    public func feed(query: [(String, String)], profileName: String, logger: Logger? = nil) async throws(ErrorDetail)
        -> Feed
    {
        let clock = aggregator.clock()
        let window = try Self.window(query: query, clock: clock)
        let sections = parts.flatMap { $0.sections(for: window) }.compactMap { section -> RouteSection? in
            guard let operation = registry[section.operation] else { return nil }
            return RouteSection(
                name: section.name, operation: operation, arguments: section.arguments.mapValues { .literal($0) },
                ttl: nil)
        }
        let route = Route(
            path: Self.path, file: "(built in)", description: "The household's day as an iCalendar feed.",
            deadline: 5, parameters: [], sections: sections)
        let request = try aggregator.resolve(route: route, query: [], profileName: profileName, clock: clock)
        let answer = try await aggregator.run(request, logger: logger)

        let input = CalendarFeedInput(bodies: answer.sectionBodies, window: window)
        var entries: [CalendarFeedEntry] = []
        for part in parts {
            let contribution = part.contribution(input)
            if let source = contribution.source {
                entries += contribution.events.compactMap { Self.entry($0, from: source, zone: window.zone) }
            }
            entries += contribution.entries
        }
        var seen = Set<String>()
        entries = entries.filter { seen.insert($0.uid).inserted }
        entries.sort { ($0.start(in: window.zone), $0.uid) < ($1.start(in: window.zone), $1.uid) }

        let writer = CalendarFeedWriter(zone: window.zone, name: "daygate (\(profileName))")
        let text = writer.write(entries, window: window, stamp: clock.now)
        let validator = text.split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("DTSTAMP:") }.joined(separator: "\r\n")
        let digest = SHA256.hash(data: Data(validator.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        var missing: [String: ErrorDetail] = [:]
        for (name, report) in answer.sections where answer.sectionBodies[name] == nil {
            if let error = report.error { missing[name] = error }
        }
        return Feed(text: text, etag: "\"\(digest)\"", missing: missing, window: window)
    }

    /// An event as a feed entry: timed in the zone, or whole days (the end made exclusive); named
    /// after its calendar, or its source when it has none.
    static func entry(_ event: Event, from source: CalendarFeedSource, zone: TimeZone) -> CalendarFeedEntry? {
        guard let start = LenientDate.parse(event.start, naiveZone: zone) else { return nil }
        let end = LenientDate.parse(event.end, naiveZone: zone).map { max($0, start) } ?? start
        let name = event.calendar ?? source.name
        var description = event.description ?? ""
        if let calendar = event.calendar { description += (description.isEmpty ? "" : "\n\n") + "Agenda: \(calendar)" }
        let time: CalendarFeedEntry.Time
        if event.allDay {
            let first = LocalDate(containing: start, in: zone)
            let last = LocalDate(containing: end > start ? end.addingTimeInterval(-1) : start, in: zone)
            time = .days(first: first, end: last.adding(days: 1))
        } else {
            time = .instants(start: start, end: end)
        }
        let status: String? =
            switch event.status.lowercased() {
            case "cancelled", "canceled": "CANCELLED"
            case "tentative": "TENTATIVE"
            default: "CONFIRMED"
            }
        return CalendarFeedEntry(
            uid: "\(QueryString.escape(name))-\(QueryString.escape(event.id))@daygate", summary: event.title,
            time: time,
            location: event.location, description: description.isEmpty ? nil : description,
            categories: [event.calendar ?? source.category] + event.tags, status: status)
    }
}
