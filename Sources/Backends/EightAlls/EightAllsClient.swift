import Foundation
import Model

/// 8alls over HTTP (docs/backends/eightalls.md). No auth. Datetimes in queries are full UTC
/// datetimes, strictly percent-encoded; answers may carry naive or `Z` datetimes.
public struct EightAllsClient: Sendable {
    public static let backend = "eightalls"
    public var endpoint: BackendEndpoint
    public var http: UpstreamHTTP
    public var source: UpstreamSource

    public init(endpoint: BackendEndpoint, http: UpstreamHTTP, profile: String) {
        self.endpoint = endpoint
        self.http = http
        self.source = UpstreamSource(profile: profile, backend: Self.backend)
    }

    /// The query for events overlapping `[start, end)`: 8alls keeps events with
    /// `end_time >= start_date` and `start_time <= end_date`, both inclusive, so the end is
    /// sent one microsecond early.
    public static func eventsQuery(start: Date, end: Date, eventType: String?, status: String?) -> String {
        QueryString.encode([
            ("start_date", LenientDate.format(start, in: .gmt)),
            ("end_date", LenientDate.format(end.addingTimeInterval(-0.000_001), in: .gmt)),
            ("event_type", eventType),
            ("status", status),
        ])
    }

    public func events(start: Date, end: Date, eventType: String?, status: String?) async throws -> [EightAllsEvent] {
        let url =
            endpoint.baseURL + "/events?"
            + Self.eventsQuery(start: start, end: end, eventType: eventType, status: status)
        let response = try await http.send(url: url, timeout: endpoint.timeout.seconds, source: source)
        guard response.isSuccess else {
            throw UpstreamHTTP.error(for: response, backend: Self.backend)
        }
        return try Self.decodeEvents(response.body)
    }

    public static func decodeEvents(_ body: Data) throws -> [EightAllsEvent] {
        guard let value = try? JSONValue(parsing: body),
            let items = LenientList.items(in: value, keys: ["events", "data", "items"])
        else {
            throw BackendError(
                .badResponse, backend: backend, message: "8alls sent an answer that is not a list of events")
        }
        return try items.enumerated().map { index, item in
            guard let event = EightAllsEvent(item) else {
                throw BackendError(
                    .badResponse, backend: backend,
                    message: "8alls event \(index) lacks an id, a title or valid start/end times")
            }
            return event
        }
    }
}

/// An event as 8alls sends it, read leniently.
public struct EightAllsEvent: Sendable, Hashable {
    public var id: String
    public var title: String
    public var description: String?
    public var start: Date
    public var end: Date
    public var allDay: Bool
    public var location: String?
    public var status: String
    public var eventType: String?
    public var color: String?
    public var tags: [String]

    public init?(_ value: JSONValue) {
        guard let fields = LenientFields(value),
            let id = fields.string("id"),
            let title = fields.string("title"),
            let start = fields.string("start_time", "start").flatMap({ LenientDate.parse($0) }),
            let end = fields.string("end_time", "end").flatMap({ LenientDate.parse($0) })
        else { return nil }
        self.id = id
        self.title = title
        self.description = fields.string("description")
        self.start = start
        self.end = end
        self.allDay = fields.bool("all_day", "is_all_day") ?? false
        self.location = fields.string("location")
        self.status = fields.string("status") ?? "confirmed"
        self.eventType = fields.string("event_type", "type")
        self.color = fields.string("color")
        self.tags = fields.strings("tags") ?? []
    }

    /// The unified event, times in `zone`.
    public func unified(in zone: TimeZone) -> Event {
        Event(
            id: id, title: title, description: description,
            start: LenientDate.format(start, in: zone), end: LenientDate.format(end, in: zone),
            allDay: allDay, location: location, status: status, type: eventType, color: color, tags: tags
        )
    }

    /// Overlaps `[interval.start, interval.end)`; a zero-length event counts at its start.
    public func overlaps(_ interval: DateInterval) -> Bool {
        if start == end { return start >= interval.start && start < interval.end }
        return end > interval.start && start < interval.end
    }
}
