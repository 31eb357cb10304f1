import Aggregation
import AsyncHTTPClient
import Backends
import Cache
import Foundation
import Logging
import Model

/// Everything a running gateway holds, built from the config: the SQLite store and its memory
/// tier, the one shared HTTP client with its per-source monitor, the loaded routes, the
/// aggregator and the metrics registry.
public final class GatewayRuntime: Sendable {
    public let config: DaygateConfig
    public let routes: [Route]
    public let registry: OperationRegistry
    public let database: CacheDatabase
    public let cache: CacheStore
    public let http: UpstreamHTTP
    public let vault: SQLiteCredentialVault
    public let sessions: SessionRegistry
    public let aggregator: Aggregator
    /// `/v1/summary`: the built-in route Home Assistant polls.
    public let summary: SummaryService
    public let metrics: GatewayMetrics
    /// Client connections held at once, and how long slow clients may take.
    public let connections: ConnectionBudget
    public let logger: Logger
    /// Rendered answers reused while they stay byte-for-byte the same.
    let answers: AnswerMemo

    /// Opens the cache and loads the routes; throws `RouteLoadError` or a database error.
    /// - Parameters:
    ///   - httpClient: an existing client to share (tests); by default the runtime makes its own.
    ///   - circuit: when a source's circuit opens and for how long.
    ///   - upstreamInProcess: the backends run in this process (the demo's simulators), so each
    ///     upstream connection takes two of its descriptors.
    public init(
        config: DaygateConfig, registry: OperationRegistry = .standard, logger: Logger = Logger(label: "daygate"),
        httpClient: HTTPClient? = nil, circuit: CircuitBreaker.Policy = .standard, upstreamInProcess: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.config = config
        self.logger = logger
        self.metrics = GatewayMetrics()
        let limits = config.limits
        let budget = ConnectionBudget.limit(
            maxConnections: limits.maxConnections, descriptors: OpenFileLimit.current().soft,
            upstreamHosts: config.upstreamOrigins.count, upstreamPerHost: limits.upstreamConnectionsPerHost,
            upstreamInProcess: upstreamInProcess
        )
        self.connections = ConnectionBudget(
            limit: budget.limit,
            timeouts: .init(
                head: .nanoseconds(Int64(limits.headerTimeout.seconds * 1e9)),
                body: .nanoseconds(Int64(limits.bodyTimeout.seconds * 1e9)),
                idle: .nanoseconds(Int64(limits.idleTimeout.seconds * 1e9))
            ),
            metrics: metrics.factory, logger: logger
        )
        self.registry = registry
        self.routes = try RouteLoader(registry: registry).load(directory: config.routesDir)
        self.database = try CacheDatabase.openingOrStandingIn(stateDirectory: config.stateDir)
        if let temporary = database.storageHealth.temporary {
            logger.error("the state folder cannot be used: \(temporary)")
        }
        self.cache = CacheStore(
            database: database, maxBytes: config.cache.maxSize.bytes, memoryBytes: config.cache.memorySize.bytes,
            metrics: metrics.factory, logger: logger, now: now
        )
        self.http = UpstreamHTTP(
            client: httpClient, connectionsPerHost: limits.upstreamConnectionsPerHost,
            monitor: UpstreamMonitor(policy: circuit, metrics: metrics.factory, now: now),
            redactor: SecretRedactor(secrets: config.secrets)
        )
        self.vault = SQLiteCredentialVault(database: database)
        self.sessions = SessionRegistry(vault: vault, now: now)
        self.aggregator = Aggregator(
            config: config, cache: cache, http: self.http, sessions: sessions, logger: logger, now: now)
        self.summary = SummaryService(aggregator: aggregator, registry: registry)
        self.answers = AnswerMemo(cache: cache)
    }

    /// What /readyz reports.
    public func readiness() -> [String: Bool] {
        [
            "config": true,
            "routes": !routes.isEmpty,
            "cache": database.isReadable(),
        ]
    }

    public func shutdown() async {
        await http.shutdown()
    }
}
