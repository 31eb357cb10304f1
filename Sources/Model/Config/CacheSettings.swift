/// Cache tuning: durable size cap, memory tier size, per-operation TTLs and the stale windows.
public struct CacheSettings: Sendable, Hashable, Codable {
    /// Cap on the SQLite store; the oldest entries are evicted beyond it.
    public var maxSize: ByteSize
    /// Cap on the in-memory tier in front of SQLite.
    public var memorySize: ByteSize
    /// TTL per operation name (`eightalls.events: 30s`), overriding the built-in defaults.
    public var ttl: [String: ConfigDuration]
    /// After freshness ends: served at once while a background refresh runs.
    /// Default: as long as the TTL.
    public var staleWhileRevalidate: ConfigDuration?
    /// After that: served only when the backend fails.
    public var staleIfError: ConfigDuration

    public init(
        maxSize: ByteSize = .megabytes(100), memorySize: ByteSize = .megabytes(32),
        ttl: [String: ConfigDuration] = [:], staleWhileRevalidate: ConfigDuration? = nil,
        staleIfError: ConfigDuration = .seconds(7 * 86_400)
    ) {
        self.maxSize = maxSize
        self.memorySize = memorySize
        self.ttl = ttl
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
    }

    enum CodingKeys: String, CodingKey {
        case maxSize = "max_size"
        case memorySize = "memory_size"
        case ttl
        case staleWhileRevalidate = "stale_while_revalidate"
        case staleIfError = "stale_if_error"
    }

    public init(from decoder: any Decoder) throws {
        let defaults = CacheSettings()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.maxSize = try container.decodeIfPresent(ByteSize.self, forKey: .maxSize) ?? defaults.maxSize
        self.memorySize = try container.decodeIfPresent(ByteSize.self, forKey: .memorySize) ?? defaults.memorySize
        self.ttl = try container.decodeIfPresent([String: ConfigDuration].self, forKey: .ttl) ?? [:]
        self.staleWhileRevalidate = try container.decodeIfPresent(ConfigDuration.self, forKey: .staleWhileRevalidate)
        self.staleIfError =
            try container.decodeIfPresent(ConfigDuration.self, forKey: .staleIfError) ?? defaults.staleIfError
        for (operation, duration) in ttl where duration.seconds <= 0 {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath + [CodingKeys.ttl, AnyKey(operation)],
                    debugDescription: "a TTL must be more than 0"
                ))
        }
    }
}

/// A coding key built at run time (dictionary keys and list indexes in error paths).
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { self.stringValue = string }
    init(_ index: Int) {
        self.stringValue = String(index)
        self.intValue = index
    }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.init(intValue) }
}
