import Foundation

/// The household (`household:` in daygate.yaml): which profiles are its members, each with a
/// display name and a colour, and the wall display's night hours. The household routes
/// (`/v1/household/…`) read every member's day; a key needs the `household` scope for them.
///
/// ```yaml
/// household:
///   name: De Vries
///   members:
///     - profile: default
///       name: Anna
///       color: "#2563eb"
///       share: [nutrition]
///     - profile: bas
///       name: Bas
///       color: "#16a34a"
///   wall:
///     night: "22:30-06:30"
/// ```
public struct HouseholdConfig: Sendable, Hashable, Codable {
    /// The most members a household may have (each is a full day's fan-out on the wall).
    public static let maximumMembers = 12

    /// Shown as the wall's title; none by default.
    public var name: String?
    public var members: [Member]
    public var wall: Wall

    public struct Member: Sendable, Hashable, Codable {
        /// The member's profile (must exist).
        public var profile: String
        /// The member in answers (`member`, `members[].id`, the summary's keys): letters, digits,
        /// `-` and `_`; the profile's name unless given (`anna` for the profile `default`).
        public var id: String
        /// Shown on the wall (1 to 40 characters).
        public var name: String
        /// `#rrggbb`: the member's lane and marks on the wall.
        public var color: String
        /// Sections marked `opt_in` in a household route file that this member shares (e.g.
        /// `nutrition`): a member's meals are on the wall only when they say so.
        public var share: [String]

        public init(profile: String, id: String? = nil, name: String, color: String, share: [String] = []) {
            self.profile = profile
            self.id = id ?? profile
            self.name = name
            self.color = color
            self.share = share
        }

        enum CodingKeys: String, CodingKey {
            case profile, id, name, color, share
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            profile = try container.decode(String.self, forKey: .profile)
            id = try container.decodeIfPresent(String.self, forKey: .id) ?? profile
            guard DaygateConfig.isValidProfileName(id) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .id, in: container, debugDescription: "a member's id uses letters, digits, - and _ only")
            }
            name = try container.decodeIfPresent(String.self, forKey: .name) ?? profile
            color = try container.decode(String.self, forKey: .color)
            share = try container.decodeIfPresent([String].self, forKey: .share) ?? []
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= 40, !trimmed.contains(where: \.isNewline) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .name, in: container, debugDescription: "a member's name is 1 to 40 characters on one line")
            }
            name = trimmed
            guard Self.isColor(color) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .color, in: container, debugDescription: "a colour is #rrggbb, e.g. \"#2563eb\"")
            }
            color = color.lowercased()
            for section in share where !DaygateConfig.isValidProfileName(section) {
                throw DecodingError.dataCorruptedError(
                    forKey: .share, in: container,
                    debugDescription: "\"\(section.prefix(40))\" is not a section name (letters, digits, - and _)")
            }
        }

        static func isColor(_ text: String) -> Bool {
            let scalars = Array(text.unicodeScalars)
            return scalars.count == 7 && scalars[0] == "#"
                && scalars.dropFirst().allSatisfy { $0.properties.isASCIIHexDigit }
        }
    }

    /// The wall page's settings.
    public struct Wall: Sendable, Hashable, Codable {
        /// Local hours (`HH:MM-HH:MM`, may pass midnight) when the wall dims; none: never.
        public var night: NightHours?

        public init(night: NightHours? = nil) {
            self.night = night
        }
    }

    public init(name: String? = nil, members: [Member], wall: Wall = Wall()) {
        self.name = name
        self.members = members
        self.wall = wall
    }

    enum CodingKeys: String, CodingKey {
        case name, members, wall
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        if let name, name.isEmpty || name.count > 60 || name.contains(where: \.isNewline) {
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: container, debugDescription: "the household's name is 1 to 60 characters on one line"
            )
        }
        members = try container.decode([Member].self, forKey: .members)
        guard !members.isEmpty, members.count <= Self.maximumMembers else {
            throw DecodingError.dataCorruptedError(
                forKey: .members, in: container,
                debugDescription: "a household has 1 to \(Self.maximumMembers) members")
        }
        wall = try container.decodeIfPresent(Wall.self, forKey: .wall) ?? Wall()
    }

    public func member(profile: String) -> Member? {
        members.first { $0.profile == profile }
    }
}

/// Local hours of the night (`HH:MM-HH:MM`): from the first time up to the second, through
/// midnight when the second is earlier (`22:30-06:30`).
public struct NightHours: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Minutes after midnight.
    public var from: Int
    public var to: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Self.minutes(parts[0]), let to = Self.minutes(parts[1]), from != to
        else { return nil }
        self.from = from
        self.to = to
    }

    /// `HH:MM` (24 hours) as minutes after midnight.
    static func minutes(_ text: Substring) -> Int? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hours = Int(parts[0]),
            let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) })
        else { return nil }
        return hours * 60 + minutes
    }

    /// Whether `minute` (after local midnight) is in the night.
    public func contains(minute: Int) -> Bool {
        from < to ? (from..<to).contains(minute) : minute >= from || minute < to
    }

    public var description: String {
        String(format: "%02d:%02d-%02d:%02d", from / 60, from % 60, to / 60, to % 60)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let hours = NightHours(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "night hours are HH:MM-HH:MM, e.g. \"22:30-06:30\"")
        }
        self = hours
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
