import Foundation

/// `daygate.yaml`, decoded and validated. Relative paths are resolved against the config
/// file's folder by `ConfigLoader`.
public struct DaygateConfig: Sendable, Hashable, Codable {
    public var listen: ListenAddress
    /// Folder of the cache database and credential vault.
    public var stateDir: String
    /// IANA name; decides what "today" is and the offset of every time in answers.
    public var timezone: String
    public var routesDir: String
    public var staticDir: String
    public var cache: CacheSettings
    public var profiles: [String: ProfileConfig]

    public init(
        listen: ListenAddress = .defaultAddress, stateDir: String = "state",
        timezone: String = TimeZone.current.identifier, routesDir: String = "routes", staticDir: String = "static",
        cache: CacheSettings = CacheSettings(), profiles: [String: ProfileConfig]
    ) {
        self.listen = listen
        self.stateDir = stateDir
        self.timezone = timezone
        self.routesDir = routesDir
        self.staticDir = staticDir
        self.cache = cache
        self.profiles = profiles
    }

    enum CodingKeys: String, CodingKey {
        case listen
        case stateDir = "state_dir"
        case timezone
        case routesDir = "routes_dir"
        case staticDir = "static_dir"
        case cache
        case profiles
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.listen = try container.decodeIfPresent(ListenAddress.self, forKey: .listen) ?? .defaultAddress
        self.stateDir = try container.decodeIfPresent(String.self, forKey: .stateDir) ?? "state"
        self.timezone = try container.decodeIfPresent(String.self, forKey: .timezone) ?? TimeZone.current.identifier
        guard TimeZone(identifier: timezone) != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .timezone, in: container, debugDescription: "unknown IANA timezone \"\(timezone)\" (e.g. Europe/Amsterdam)"
            )
        }
        self.routesDir = try container.decodeIfPresent(String.self, forKey: .routesDir) ?? "routes"
        self.staticDir = try container.decodeIfPresent(String.self, forKey: .staticDir) ?? "static"
        self.cache = try container.decodeIfPresent(CacheSettings.self, forKey: .cache) ?? CacheSettings()
        self.profiles = try container.decode([String: ProfileConfig].self, forKey: .profiles)
        guard !profiles.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .profiles, in: container, debugDescription: "at least one profile is needed")
        }
        for name in profiles.keys where !Self.isValidProfileName(name) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [CodingKeys.profiles, AnyKey(name)],
                debugDescription: "a profile name uses letters, digits, - and _ only"
            ))
        }
        if profiles.count > 1, profiles["default"] == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .profiles, in: container,
                debugDescription: "with several profiles, one must be named \"default\" (the one loopback clients get)"
            )
        }
    }

    static func isValidProfileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    public var timeZone: TimeZone { TimeZone(identifier: timezone) ?? .current }

    /// The profile loopback clients without a key are served.
    public var defaultProfileName: String {
        profiles["default"] != nil ? "default" : profiles.keys.sorted()[0]
    }
}
