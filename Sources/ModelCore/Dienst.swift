/// A canteen shift at a club (Kantine Koning), merged over every enrollment that sees it.
public struct Dienst: Sendable, Hashable, Codable {
    public struct Team: Sendable, Hashable, Codable {
        public var id: String
        public var code: String?
        public var name: String

        public init(id: String, code: String?, name: String) {
            self.id = id
            self.code = code
            self.name = name
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(code, forKey: .code)
            try container.encode(name, forKey: .name)
        }
    }

    public struct Kind: Sendable, Hashable, Codable {
        public var name: String
        public var icon: String?

        public init(name: String, icon: String?) {
            self.name = name
            self.icon = icon
        }
    }

    public var id: String
    public var tenant: String
    /// Nil for an open dienst no team has claimed.
    public var team: Team?
    public var start: String
    public var end: String
    public var location: String?
    public var type: Kind?
    public var status: String
    public var volunteers: [String]
    public var volunteersNeeded: Int
    public var openSpots: Int
    /// `manager` or `member`: the strongest role among the enrollments that see it.
    public var role: String
    public var offeredForTransfer: Bool
    public var updatedAt: String?

    public init(
        id: String, tenant: String, team: Team?, start: String, end: String, location: String?, type: Kind?,
        status: String, volunteers: [String], volunteersNeeded: Int, role: String, offeredForTransfer: Bool,
        updatedAt: String?
    ) {
        self.id = id
        self.tenant = tenant
        self.team = team
        self.start = start
        self.end = end
        self.location = location
        self.type = type
        self.status = status
        self.volunteers = volunteers
        self.volunteersNeeded = volunteersNeeded
        // The club's figure is its own: `Int.min` needed is no spots open, not a trap.
        let (open, overflow) = volunteersNeeded.subtractingReportingOverflow(volunteers.count)
        self.openSpots = overflow ? 0 : max(0, open)
        self.role = role
        self.offeredForTransfer = offeredForTransfer
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, tenant, team, start, end, location, type, status, volunteers
        case volunteersNeeded = "volunteers_needed"
        case openSpots = "open_spots"
        case role
        case offeredForTransfer = "offered_for_transfer"
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(tenant, forKey: .tenant)
        try container.encode(team, forKey: .team)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(location, forKey: .location)
        try container.encode(type, forKey: .type)
        try container.encode(status, forKey: .status)
        try container.encode(volunteers, forKey: .volunteers)
        try container.encode(volunteersNeeded, forKey: .volunteersNeeded)
        try container.encode(openSpots, forKey: .openSpots)
        try container.encode(role, forKey: .role)
        try container.encode(offeredForTransfer, forKey: .offeredForTransfer)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

/// One team's place on a club's leaderboard.
public struct LeaderboardEntry: Sendable, Hashable, Codable {
    public var rank: Int
    public var team: Dienst.Team
    public var points: Int
    public var totalHours: Double
    public var recentChange: Int
    public var positionChange: Int
    public var highlighted: Bool

    public init(
        rank: Int, team: Dienst.Team, points: Int, totalHours: Double, recentChange: Int, positionChange: Int,
        highlighted: Bool
    ) {
        self.rank = rank
        self.team = team
        self.points = points
        self.totalHours = totalHours
        self.recentChange = recentChange
        self.positionChange = positionChange
        self.highlighted = highlighted
    }

    enum CodingKeys: String, CodingKey {
        case rank, team, points
        case totalHours = "total_hours"
        case recentChange = "recent_change"
        case positionChange = "position_change"
        case highlighted
    }
}
