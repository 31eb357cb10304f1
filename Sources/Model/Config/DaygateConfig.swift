import Foundation

/// `daygate.yaml`, decoded and validated. Relative paths are resolved against the config
/// file's folder by `ConfigLoader`.
public struct DaygateConfig: Sendable, Codable {
    public var listen: ListenAddress
    /// Folder of the cache database and credential vault.
    public var stateDir: String
    /// IANA name; decides what "today" is and the offset of every time in answers.
    public var timezone: String
    public var routesDir: String
    public var staticDir: String
    public var cache: CacheSettings
    public var profiles: [String: ProfileConfig]
    /// API keys and the profile each is served; empty = loopback-only, default profile.
    public var clients: [ClientConfig]
    public var cors: CORSSettings
    /// Host names (besides localhost and the loopback addresses) that loopback mode accepts
    /// in the `Host` header; anything else is refused (DNS rebinding).
    public var allowedHosts: [String]
    /// Connection budget and slow-client timeouts.
    public var limits: LimitsSettings
    /// The household: the profiles whose days the household routes read together; none by
    /// default (the household routes then answer 404 `no_household`).
    public var household: HouseholdConfig?

    public init(
        listen: ListenAddress = .defaultAddress, stateDir: String = "state",
        timezone: String = TimeZone.current.identifier, routesDir: String = "routes", staticDir: String = "static",
        cache: CacheSettings = CacheSettings(), profiles: [String: ProfileConfig], clients: [ClientConfig] = [],
        cors: CORSSettings = CORSSettings(), allowedHosts: [String] = [], limits: LimitsSettings = LimitsSettings(),
        household: HouseholdConfig? = nil
    ) {
        self.listen = listen
        self.stateDir = stateDir
        self.timezone = timezone
        self.routesDir = routesDir
        self.staticDir = staticDir
        self.cache = cache
        self.profiles = profiles
        self.clients = clients
        self.cors = cors
        self.allowedHosts = allowedHosts
        self.limits = limits
        self.household = household
    }

    enum CodingKeys: String, CodingKey {
        case listen
        case stateDir = "state_dir"
        case timezone
        case routesDir = "routes_dir"
        case staticDir = "static_dir"
        case cache
        case profiles
        case clients
        case cors
        case allowedHosts = "allowed_hosts"
        case limits
        case household
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.listen = try container.decodeIfPresent(ListenAddress.self, forKey: .listen) ?? .defaultAddress
        self.stateDir = try container.decodeIfPresent(String.self, forKey: .stateDir) ?? "state"
        self.timezone = try container.decodeIfPresent(String.self, forKey: .timezone) ?? TimeZone.current.identifier
        guard TimeZone(identifier: timezone) != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .timezone, in: container,
                debugDescription: "unknown IANA timezone \"\(timezone)\" (e.g. Europe/Amsterdam)"
            )
        }
        self.routesDir = try container.decodeIfPresent(String.self, forKey: .routesDir) ?? "routes"
        self.staticDir = try container.decodeIfPresent(String.self, forKey: .staticDir) ?? "static"
        self.cache = try container.decodeIfPresent(CacheSettings.self, forKey: .cache) ?? CacheSettings()
        self.profiles = try container.decode([String: ProfileConfig].self, forKey: .profiles)
        guard !profiles.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .profiles, in: container, debugDescription: "at least one profile is needed")
        }
        for name in profiles.keys where !Self.isValidProfileName(name) {
            throw DecodingError.dataCorrupted(
                .init(
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
        self.clients = try container.decodeIfPresent([ClientConfig].self, forKey: .clients) ?? []
        for (index, client) in clients.enumerated() {
            let path = container.codingPath + [CodingKeys.clients, AnyKey(index)]
            guard profiles[client.profile] != nil else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: path + [ClientConfig.CodingKeys.profile],
                        debugDescription:
                            "no profile \"\(client.profile)\" (profiles: \(profiles.keys.sorted().joined(separator: ", ")))"
                    ))
            }
            if clients[..<index].contains(where: { $0.key == client.key }) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: path + [ClientConfig.CodingKeys.key],
                        debugDescription: "this key is already given to another client"))
            }
            if let feedKey = client.feedKey,
                clients.enumerated().contains(where: {
                    $0.element.key == feedKey || ($0.offset < index && $0.element.feedKey == feedKey)
                })
            {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: path + [ClientConfig.CodingKeys.feedKey],
                        debugDescription: "this feed key is already another key"))
            }
            if clients[..<index].contains(where: { $0.name == client.name }) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: path + [ClientConfig.CodingKeys.name],
                        debugDescription: "another client has this name"))
            }
        }
        self.cors = try container.decodeIfPresent(CORSSettings.self, forKey: .cors) ?? CORSSettings()
        self.allowedHosts = try container.decodeIfPresent([String].self, forKey: .allowedHosts) ?? []
        self.limits = try container.decodeIfPresent(LimitsSettings.self, forKey: .limits) ?? LimitsSettings()
        self.household = try container.decodeIfPresent(HouseholdConfig.self, forKey: .household)
        for (index, member) in (household?.members ?? []).enumerated() {
            let path =
                container.codingPath + [CodingKeys.household, AnyKey("members"), AnyKey(index), AnyKey("profile")]
            guard profiles[member.profile] != nil else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: path,
                        debugDescription:
                            "no profile \"\(member.profile)\" (profiles: \(profiles.keys.sorted().joined(separator: ", ")))"
                    ))
            }
            if household!.members[..<index].contains(where: { $0.profile == member.profile }) {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path, debugDescription: "this profile is already a member"))
            }
            if household!.members[..<index].contains(where: { $0.id == member.id }) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: container.codingPath + [
                            CodingKeys.household, AnyKey("members"), AnyKey(index), AnyKey("id"),
                        ], debugDescription: "another member has this id"))
            }
        }
    }

    static func isValidProfileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    public var timeZone: TimeZone { TimeZone(identifier: timezone) ?? .current }

    /// Every secret the config holds (each profile's `Secret`s — backend passwords, tokens, API
    /// keys — and the client keys): what must never reach a log, an error or an answer.
    public var secrets: Set<String> {
        var all = Set(clients.map(\.key) + clients.compactMap(\.feedKey))
        for profile in profiles.values {
            all.formUnion(profile.secrets.map { $0.reveal() })
        }
        return all.filter { $0.count >= 4 }
    }

    /// The upstream servers (scheme, host and port) of every profile: the shared HTTP client
    /// keeps a connection pool for each.
    public var upstreamOrigins: Set<String> {
        Set(
            profiles.values.flatMap(\.endpoints).compactMap { endpoint in
                guard let url = URL(string: endpoint.baseURL), let scheme = url.scheme?.lowercased(),
                    let host = url.host?.lowercased()
                else { return nil }
                return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
            })
    }

    /// The profile loopback clients without a key are served.
    public var defaultProfileName: String {
        profiles["default"] != nil ? "default" : profiles.keys.sorted()[0]
    }
}
