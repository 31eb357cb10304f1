import Foundation

/// One API client (`clients:` in daygate.yaml): a name for logs, the key it sends as
/// `Authorization: Bearer <key>`, and the profile that key is served. Keys come from
/// `${ENV}` or `${file:}` like every secret.
public struct ClientConfig: Sendable, Hashable, Codable {
    /// Shortest key accepted: a key is a password to the whole household's data.
    public static let minimumKeyLength = 16

    public var name: String
    public var key: String
    public var profile: String
    /// A second key that reads only `/v1/calendar.ics`, given as `?key=` (calendar apps cannot
    /// send headers, and a URL is easily shared: it must not open anything else).
    public var feedKey: String?
    /// What the key may do (`ClientScope`); `read` and `write` when not given.
    public var scopes: Set<ClientScope>

    public init(
        name: String, key: String, profile: String, feedKey: String? = nil,
        scopes: Set<ClientScope> = ClientScope.defaults
    ) {
        self.name = name
        self.key = key
        self.profile = profile
        self.feedKey = feedKey
        self.scopes = scopes
    }

    enum CodingKeys: String, CodingKey {
        case name, key, profile
        case feedKey = "feed_key"
        case scopes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(key, forKey: .key)
        try container.encode(profile, forKey: .profile)
        try container.encodeIfPresent(feedKey, forKey: .feedKey)
        try container.encode(scopes.sorted(), forKey: .scopes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.name = try container.decode(String.self, forKey: .name)
        self.key = try container.decode(String.self, forKey: .key)
        self.profile = try container.decodeIfPresent(String.self, forKey: .profile) ?? "default"
        self.feedKey = try container.decodeIfPresent(String.self, forKey: .feedKey)
        if let listed = try container.decodeIfPresent([String].self, forKey: .scopes) {
            var scopes: Set<ClientScope> = []
            for name in listed {
                guard let scope = ClientScope(rawValue: name) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .scopes, in: container,
                        debugDescription:
                            "unknown scope \"\(name.prefix(40))\" (scopes: \(ClientScope.describe(ClientScope.all)))")
                }
                scopes.insert(scope)
            }
            guard !scopes.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .scopes, in: container,
                    debugDescription: "a key with no scope opens nothing; leave scopes out for read and write")
            }
            self.scopes = scopes
        } else {
            self.scopes = ClientScope.defaults
        }
        if let feedKey {
            guard Self.isValidKey(feedKey) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .feedKey, in: container,
                    debugDescription:
                        "a feed key is at least \(Self.minimumKeyLength) letters, digits, - or _ (it goes in a URL; e.g. `openssl rand -hex 24`)"
                )
            }
            guard feedKey != key else {
                throw DecodingError.dataCorruptedError(
                    forKey: .feedKey, in: container, debugDescription: "the feed key must differ from the client key")
            }
        }
        guard DaygateConfig.isValidProfileName(name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: container, debugDescription: "a client name uses letters, digits, - and _ only")
        }
        guard key.count >= Self.minimumKeyLength,
            key.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline && $0 != "\0" })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .key, in: container,
                debugDescription:
                    "a key is at least \(Self.minimumKeyLength) visible ASCII characters (e.g. `openssl rand -hex 24`)"
            )
        }
    }

    /// A feed key: long enough, and only characters a URL carries as they are.
    static func isValidKey(_ key: String) -> Bool {
        key.count >= minimumKeyLength
            && key.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }
}

/// Cross-origin access (`cors:`): off unless origins are listed.
public struct CORSSettings: Sendable, Hashable, Codable {
    /// Exact origins (`scheme://host[:port]`) whose pages may call the API.
    public var origins: [String]

    public init(origins: [String] = []) {
        self.origins = origins
    }

    enum CodingKeys: String, CodingKey { case origins }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.origins = try container.decodeIfPresent([String].self, forKey: .origins) ?? []
        for origin in origins {
            guard let url = URL(string: origin), let scheme = url.scheme, scheme == "http" || scheme == "https",
                url.host != nil,
                url.path.isEmpty, url.query == nil, !origin.hasSuffix("/")
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .origins, in: container,
                    debugDescription: "\"\(origin)\" is not an origin like https://ha.example.org:8123"
                )
            }
        }
    }
}
