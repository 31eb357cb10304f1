/// The unified calendar event (from 8alls). Times are ISO-8601 strings with the offset of
/// the configured timezone.
public struct Event: Sendable, Hashable, Codable {
    public var id: String
    public var title: String
    public var description: String?
    public var start: String
    public var end: String
    public var allDay: Bool
    public var location: String?
    public var status: String
    public var type: String?
    public var color: String?
    public var tags: [String]
    /// The subscribed calendar the event comes from (`school`); nil for the household's own
    /// calendar (8alls).
    public var calendar: String?

    public init(
        id: String, title: String, description: String? = nil, start: String, end: String,
        allDay: Bool = false, location: String? = nil, status: String = "confirmed",
        type: String? = nil, color: String? = nil, tags: [String] = [], calendar: String? = nil
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.start = start
        self.end = end
        self.allDay = allDay
        self.location = location
        self.status = status
        self.type = type
        self.color = color
        self.tags = tags
        self.calendar = calendar
    }

    enum CodingKeys: String, CodingKey {
        case id, title, description, start, end
        case allDay = "all_day"
        case location, status, type, color, tags, calendar
    }

    public func encode(to encoder: any Encoder) throws {
        // Explicit nulls: clients see every field of the unified type, always.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(allDay, forKey: .allDay)
        try container.encode(location, forKey: .location)
        try container.encode(status, forKey: .status)
        try container.encode(type, forKey: .type)
        try container.encode(color, forKey: .color)
        try container.encode(tags, forKey: .tags)
        try container.encode(calendar, forKey: .calendar)
    }
}
