/// One slot of Tickedify's daily plan.
public struct PlanItem: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case task
        case blocked
        case `break`
    }

    public var id: String
    public var taskID: String?
    public var title: String
    public var hour: Int
    public var position: Int
    public var kind: Kind
    public var durationMinutes: Int?
    public var projectID: String?
    public var contextID: String?

    public init(
        id: String, taskID: String?, title: String, hour: Int, position: Int, kind: Kind,
        durationMinutes: Int?, projectID: String?, contextID: String?
    ) {
        self.id = id
        self.taskID = taskID
        self.title = title
        self.hour = hour
        self.position = position
        self.kind = kind
        self.durationMinutes = durationMinutes
        self.projectID = projectID
        self.contextID = contextID
    }

    enum CodingKeys: String, CodingKey {
        case id
        case taskID = "task_id"
        case title, hour, position, kind
        case durationMinutes = "duration_minutes"
        case projectID = "project_id"
        case contextID = "context_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(taskID, forKey: .taskID)
        try container.encode(title, forKey: .title)
        try container.encode(hour, forKey: .hour)
        try container.encode(position, forKey: .position)
        try container.encode(kind, forKey: .kind)
        try container.encode(durationMinutes, forKey: .durationMinutes)
        try container.encode(projectID, forKey: .projectID)
        try container.encode(contextID, forKey: .contextID)
    }
}

/// A task from one of Tickedify's lists.
public struct TaskItem: Sendable, Hashable, Codable {
    public enum Priority: String, Sendable, Codable {
        case high, medium, low
    }

    public var id: String
    public var title: String
    public var list: String
    public var priority: Priority?
    /// The day it appears on (`YYYY-MM-DD`), if any.
    public var appearsOn: String?
    public var durationMinutes: Int?
    public var projectID: String?
    public var contextID: String?
    public var recurrence: String?
    public var createdAt: String?
    /// When it was completed; only tasks from the completed list have it (and only they
    /// carry the key).
    public var completedAt: String?

    public init(
        id: String, title: String, list: String, priority: Priority?, appearsOn: String?, durationMinutes: Int?,
        projectID: String?, contextID: String?, recurrence: String?, createdAt: String?, completedAt: String? = nil
    ) {
        self.id = id
        self.title = title
        self.list = list
        self.priority = priority
        self.appearsOn = appearsOn
        self.durationMinutes = durationMinutes
        self.projectID = projectID
        self.contextID = contextID
        self.recurrence = recurrence
        self.createdAt = createdAt
        self.completedAt = completedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, title, list, priority
        case appearsOn = "appears_on"
        case durationMinutes = "duration_minutes"
        case projectID = "project_id"
        case contextID = "context_id"
        case recurrence
        case createdAt = "created_at"
        case completedAt = "completed_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(list, forKey: .list)
        try container.encode(priority, forKey: .priority)
        try container.encode(appearsOn, forKey: .appearsOn)
        try container.encode(durationMinutes, forKey: .durationMinutes)
        try container.encode(projectID, forKey: .projectID)
        try container.encode(contextID, forKey: .contextID)
        try container.encode(recurrence, forKey: .recurrence)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(completedAt, forKey: .completedAt)
    }
}

/// Tickedify's sidebar counts.
public struct TaskCounts: Sendable, Hashable, Codable {
    public var inbox: Int
    public var acties: Int
    public var opvolgen: Int
    public var projecten: Int
    public var uitgesteld: Int

    public init(inbox: Int, acties: Int, opvolgen: Int, projecten: Int, uitgesteld: Int) {
        self.inbox = inbox
        self.acties = acties
        self.opvolgen = opvolgen
        self.projecten = projecten
        self.uitgesteld = uitgesteld
    }
}
