import Backends
import Foundation
import Model

/// `/v1/summary`: the day as flat scalars for Home Assistant's `value_template`, and the lists
/// behind them under named objects for `json_attributes_path`. Every key is always present
/// (null when its backend is not configured or has no data), so templates never break.
///
/// The core writes the keys every answer has (`date`, `timezone`, `stale`, `complete`,
/// `age_seconds`, `sections`) and the household's calendar (`events`, `next_event_*`) from the
/// events of every calendar backend; each backend's `SummaryPart` writes the rest.
public struct Summary: Encodable, Sendable {
    public struct Events: Encodable, Sendable {
        public struct Item: Encodable, Sendable {
            var title: String
            var start: String
            var end: String
            var allDay: Bool
            @Nullable var location: String?
            var status: String
            enum CodingKeys: String, CodingKey {
                case title, start, end
                case allDay = "all_day"
                case location, status
            }
        }
        var count: Int
        var items: [Item]
    }

    var date: String
    var timezone: String
    @Nullable var nextEventTitle: String?
    @Nullable var nextEventStart: String?
    var stale: Bool
    var complete: Bool
    var ageSeconds: Int
    var events: Events
    var sections: [String: SectionReport]
    /// The backends' keys.
    var parts: [String: JSONValue]
    /// When the clock alone changes this summary: the next event or dienst starts (and stops
    /// being "next"). Not part of the answer.
    var changesAt: Date?

    enum CodingKeys: String, CodingKey {
        case date, timezone
        case nextEventTitle = "next_event_title"
        case nextEventStart = "next_event_start"
        case stale, complete
        case ageSeconds = "age_seconds"
        case events, sections
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(timezone, forKey: .timezone)
        try container.encode(_nextEventTitle, forKey: .nextEventTitle)
        try container.encode(_nextEventStart, forKey: .nextEventStart)
        try container.encode(stale, forKey: .stale)
        try container.encode(complete, forKey: .complete)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(events, forKey: .events)
        try container.encode(sections, forKey: .sections)
        var partsContainer = encoder.container(keyedBy: PartKey.self)
        for (key, value) in parts { try partsContainer.encode(value, forKey: PartKey(key)) }
    }

    struct PartKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension Summary {
    /// The keys the core writes itself: a part may not write them.
    static let coreKeys = Set(
        [
            "date", "timezone", "next_event_title", "next_event_start", "stale", "complete", "age_seconds", "events",
            "sections",
        ])

    /// Derives the summary from an answer of `SummaryService.route` at `now`.
    /// - `events`: today's events from every calendar; `next_event_*`: the first event of the
    ///   coming week that has not started yet and is not cancelled (so today's all-day events,
    ///   which started at midnight, are not "next").
    init(answer: AggregateAnswer, parts: [any SummaryPart], date: LocalDate, zone: TimeZone, now: Date) {
        let input = SummaryInput(bodies: answer.sectionBodies, date: date, zone: zone, now: now)
        let contributions = parts.map { $0.summarize(input) }
        let week = contributions.compactMap(\.events).flatMap { $0 }

        let day = date.interval(in: zone)
        let todays = week.filter { event in
            guard let start = LenientDate.parse(event.start), let end = LenientDate.parse(event.end) else {
                return false
            }
            return start < day.end && (end > day.start || (start == end && start >= day.start))
        }
        let next = week.compactMap { event in LenientDate.parse(event.start).map { (event, $0) } }
            .filter { $0.0.status != "cancelled" && $0.1 >= now }
            .min { $0.1 < $1.1 }

        self.date = date.description
        self.timezone = zone.identifier
        self.nextEventTitle = next?.0.title
        self.nextEventStart = next?.0.start
        self.stale = answer.stale
        self.complete = answer.complete
        self.ageSeconds = answer.ageSeconds
        self.events = Events(
            count: todays.count,
            items: todays.map {
                .init(
                    title: $0.title, start: $0.start, end: $0.end, allDay: $0.allDay, location: $0.location,
                    status: $0.status)
            })
        self.sections = answer.sections
        self.parts = contributions.reduce(into: [:]) { all, part in
            all.merge(part.values.filter { !Self.coreKeys.contains($0.key) }) { first, _ in first }
        }
        self.changesAt = ([next?.1] + contributions.map(\.changesAt)).compactMap { $0 }.min()
    }
}
