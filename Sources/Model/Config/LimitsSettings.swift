import Foundation

/// `limits:` — how many client connections the gateway holds and how long it waits for slow
/// ones. The defaults fit a small home server; every key is optional.
public struct LimitsSettings: Sendable, Hashable, Codable {
    /// Client connections held at once (SSE streams included). Beyond it new connections wait in
    /// the kernel's accept queue. The gateway lowers it further when the open-file limit is too
    /// small to keep room for upstream sockets and SQLite (`ConnectionBudget`).
    public var maxConnections: Int
    /// From a connection's start, or from the first byte of a request, until its head is
    /// complete; then the connection is closed (408).
    public var headerTimeout: ConfigDuration
    /// From a request's head until its whole body has arrived.
    public var bodyTimeout: ConfigDuration
    /// A keep-alive connection with no request on it is closed after this long.
    public var idleTimeout: ConfigDuration
    /// `/v1/stream` connections one client (a client key, or an address without keys) may hold.
    public var streamsPerClient: Int
    /// Connections the shared HTTP client opens to one backend host at most.
    public var upstreamConnectionsPerHost: Int
    /// How long an idle connection to a backend is kept for the next call. A far backend (tens
    /// of milliseconds away, TLS) costs three round trips on a new connection and one on a kept
    /// one; the default keeps them across the usual minutes between a dashboard's refreshes.
    public var upstreamIdleTimeout: ConfigDuration
    /// A PEM file of certificate authorities the gateway trusts for its backends besides the
    /// system's (a self-hosted backend with its own CA); nil: the system's only.
    public var upstreamCAFile: String?

    public init(
        maxConnections: Int = 1024, headerTimeout: ConfigDuration = .seconds(10),
        bodyTimeout: ConfigDuration = .seconds(10),
        idleTimeout: ConfigDuration = .seconds(60), streamsPerClient: Int = 8, upstreamConnectionsPerHost: Int = 64,
        upstreamIdleTimeout: ConfigDuration = .seconds(300), upstreamCAFile: String? = nil
    ) {
        self.upstreamIdleTimeout = upstreamIdleTimeout
        self.upstreamCAFile = upstreamCAFile
        self.maxConnections = maxConnections
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.streamsPerClient = streamsPerClient
        self.upstreamConnectionsPerHost = upstreamConnectionsPerHost
    }

    enum CodingKeys: String, CodingKey {
        case maxConnections = "max_connections"
        case headerTimeout = "header_timeout"
        case bodyTimeout = "body_timeout"
        case idleTimeout = "idle_timeout"
        case streamsPerClient = "streams_per_client"
        case upstreamConnectionsPerHost = "upstream_connections_per_host"
        case upstreamIdleTimeout = "upstream_idle_timeout"
        case upstreamCAFile = "upstream_ca_file"
    }

    public init(from decoder: any Decoder) throws {
        let defaults = LimitsSettings()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys, default value: Int, in range: ClosedRange<Int>) throws -> Int {
            let decoded = try container.decodeIfPresent(Int.self, forKey: key) ?? value
            guard range.contains(decoded) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "expected \(range.lowerBound) to \(range.upperBound), got \(decoded)"
                )
            }
            return decoded
        }
        func span(_ key: CodingKeys, default value: ConfigDuration, in range: ClosedRange<Double>) throws
            -> ConfigDuration
        {
            let decoded = try container.decodeIfPresent(ConfigDuration.self, forKey: key) ?? value
            guard range.contains(decoded.seconds) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription:
                        "expected \(ConfigDuration.seconds(range.lowerBound)) to \(ConfigDuration.seconds(range.upperBound)), got \(decoded)"
                )
            }
            return decoded
        }
        maxConnections = try count(.maxConnections, default: defaults.maxConnections, in: 16...1_000_000)
        headerTimeout = try span(.headerTimeout, default: defaults.headerTimeout, in: 0.1...300)
        bodyTimeout = try span(.bodyTimeout, default: defaults.bodyTimeout, in: 0.1...300)
        idleTimeout = try span(.idleTimeout, default: defaults.idleTimeout, in: 0.1...3600)
        streamsPerClient = try count(.streamsPerClient, default: defaults.streamsPerClient, in: 1...1000)
        upstreamConnectionsPerHost = try count(
            .upstreamConnectionsPerHost, default: defaults.upstreamConnectionsPerHost, in: 1...1024
        )
        upstreamIdleTimeout = try span(.upstreamIdleTimeout, default: defaults.upstreamIdleTimeout, in: 1...3600)
        if let file = try container.decodeIfPresent(String.self, forKey: .upstreamCAFile) {
            guard !file.trimmingCharacters(in: .whitespaces).isEmpty, file.count <= 4096 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .upstreamCAFile, in: container, debugDescription: "expected the path of a PEM file")
            }
            upstreamCAFile = file
        } else {
            upstreamCAFile = nil
        }
    }
}
