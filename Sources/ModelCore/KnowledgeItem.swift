/// A saved link or note from PRSNL.
public struct KnowledgeItem: Sendable, Hashable, Codable {
    public var id: String
    public var title: String?
    public var url: String?
    public var summary: String?
    /// The item's text; only the single-item answer (`prsnl.item`) carries it, lists have null.
    public var content: String?
    public var type: String?
    public var tags: [String]
    public var createdAt: String?
    public var permalink: String?

    public init(
        id: String, title: String?, url: String?, summary: String?, type: String?, tags: [String], createdAt: String?,
        permalink: String?, content: String? = nil
    ) {
        self.id = id
        self.title = title
        self.url = url
        self.summary = summary
        self.content = content
        self.type = type
        self.tags = tags
        self.createdAt = createdAt
        self.permalink = permalink
    }

    enum CodingKeys: String, CodingKey {
        case id, title, url, summary, content, type, tags
        case createdAt = "created_at"
        case permalink
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(url, forKey: .url)
        try container.encode(summary, forKey: .summary)
        try container.encode(content, forKey: .content)
        try container.encode(type, forKey: .type)
        try container.encode(tags, forKey: .tags)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(permalink, forKey: .permalink)
    }
}
