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
///
/// A reload (`ReloadableGateway`) makes a new runtime from the new config with
/// `init(reloading:config:)`: routes, the aggregator and the kept answers are new, while what
/// outlives a reload (`Durable`: the database, the cache, the HTTP client and its monitor, the
/// sessions, the metrics, the connection budget) is the running one's.
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
    /// When this runtime's config and routes were read.
    public let loadedAt: Date
    /// Rendered answers reused while they stay byte-for-byte the same.
    let answers: AnswerMemo
    /// What a reload hands on to the next runtime.
    let durable: Durable

    /// The parts of a runtime made once per process, shared by every runtime a reload makes.
    struct Durable: Sendable {
        var metrics: GatewayMetrics
        var connections: ConnectionBudget
        var database: CacheDatabase
        var cache: CacheStore
        var vault: SQLiteCredentialVault
        var sessions: SessionRegistry
        /// The HTTP client's owner (it shuts it down); later runtimes share its client and monitor.
        var http: UpstreamHTTP
        /// Keyed writes on their way (a reload must not forget one).
        var idempotency: IdempotencyGuard
        /// Live `/v1/stream` connections per client.
        var streams: StreamQuota
        /// Live `/v1/stream`s with the key each was opened with (a reload ends those of a
        /// removed or changed key).
        var openStreams: OpenStreams
        /// The proof that loops and executor still run work (`WatchdogService` drives it; a
        /// runtime without one, as in the in-process tests, is always alive).
        var heartbeat: Heartbeat
        var now: @Sendable () -> Date
    }

    /// What `/healthz` answers from.
    public var heartbeat: Heartbeat { durable.heartbeat }

    /// Opens the cache and loads the routes; throws `RouteLoadError` or a database error.
    /// - Parameters:
    ///   - httpClient: an existing client to share (tests); by default the runtime makes its own.
    ///   - circuit: when a source's circuit opens and for how long.
    ///   - upstreamInProcess: the backends run in this process (the demo's simulators), so each
    ///     upstream connection takes two of its descriptors.
    public convenience init(
        config: DaygateConfig, registry: OperationRegistry = .standard, logger: Logger = Logger(label: "daygate"),
        httpClient: HTTPClient? = nil, circuit: CircuitBreaker.Policy = .standard, upstreamInProcess: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let metrics = GatewayMetrics()
        let limits = config.limits
        let budget = ConnectionBudget.limit(
            maxConnections: limits.maxConnections, descriptors: OpenFileLimit.current().soft,
            upstreamHosts: config.upstreamOrigins.count, upstreamPerHost: limits.upstreamConnectionsPerHost,
            upstreamInProcess: upstreamInProcess
        )
        let connections = ConnectionBudget(
            limit: budget.limit,
            timeouts: .init(
                head: .nanoseconds(Int64(limits.headerTimeout.seconds * 1e9)),
                body: .nanoseconds(Int64(limits.bodyTimeout.seconds * 1e9)),
                idle: .nanoseconds(Int64(limits.idleTimeout.seconds * 1e9))
            ),
            metrics: metrics.factory, logger: logger
        )
        // The routes first: a route file's mistake is reported before the database is opened.
        let routes = try RouteLoader(registry: registry).load(directory: config.routesDir)
        let database = try CacheDatabase.openingOrStandingIn(stateDirectory: config.stateDir)
        if let temporary = database.storageHealth.temporary {
            logger.error("the state folder cannot be used: \(temporary)")
        }
        let cache = CacheStore(
            database: database, maxBytes: config.cache.maxSize.bytes, memoryBytes: config.cache.memorySize.bytes,
            metrics: metrics.factory, logger: logger, now: now
        )
        if let file = limits.upstreamCAFile { try UpstreamHTTP.checkTrustedCAFile(file) }
        let http = UpstreamHTTP(
            client: httpClient, connectionsPerHost: limits.upstreamConnectionsPerHost,
            idleTimeout: limits.upstreamIdleTimeout.seconds, trustedCAFile: limits.upstreamCAFile,
            monitor: UpstreamMonitor(policy: circuit, metrics: metrics.factory, now: now),
            redactor: SecretRedactor(secrets: config.secrets)
        )
        let vault = SQLiteCredentialVault(database: database)
        let durable = Durable(
            metrics: metrics, connections: connections, database: database, cache: cache, vault: vault,
            sessions: SessionRegistry(vault: vault, now: now), http: http,
            idempotency: IdempotencyGuard(database: database, logger: logger),
            streams: StreamQuota(perClient: limits.streamsPerClient), openStreams: OpenStreams(config: config),
            heartbeat: Heartbeat(), now: now
        )
        self.init(config: config, routes: routes, registry: registry, logger: logger, http: http, durable: durable)
    }

    /// The runtime a reload makes: `config`'s routes, aggregator and secrets with `previous`'s
    /// durable parts. Throws `RouteLoadError` when a route file is wrong (`previous` serves on).
    /// `config` must keep what only a restart changes (`ConfigReloadPlan.effective`).
    public convenience init(reloading previous: GatewayRuntime, config: DaygateConfig) throws {
        let routes = try RouteLoader(registry: previous.registry).load(directory: config.routesDir)
        let owner = previous.durable.http
        // The same client and circuit breakers; the redactor knows the new config's secrets
        // (and the old ones', which answers still in flight may carry).
        let http = UpstreamHTTP(
            client: owner.client, maxResponseBytes: owner.maxResponseBytes, monitor: owner.monitor,
            redactor: SecretRedactor(secrets: config.secrets.union(previous.config.secrets)), retry: owner.retry
        )
        self.init(
            config: config, routes: routes, registry: previous.registry, logger: previous.logger, http: http,
            durable: previous.durable)
    }

    private init(
        config: DaygateConfig, routes: [Route], registry: OperationRegistry, logger: Logger, http: UpstreamHTTP,
        durable: Durable
    ) {
        self.config = config
        self.routes = routes
        self.registry = registry
        self.logger = logger
        self.durable = durable
        self.metrics = durable.metrics
        self.connections = durable.connections
        self.database = durable.database
        self.cache = durable.cache
        self.vault = durable.vault
        self.sessions = durable.sessions
        self.http = http
        self.loadedAt = durable.now()
        self.aggregator = Aggregator(
            config: config, cache: durable.cache, http: http, sessions: durable.sessions, logger: logger,
            now: durable.now)
        self.summary = SummaryService(aggregator: aggregator, registry: registry)
        self.answers = AnswerMemo(cache: durable.cache)
    }

    /// What /readyz reports: `config` is true while a valid config serves (a reload that fails
    /// leaves the last valid one serving; `ConfigStatus` tells the rest).
    public func readiness() -> [String: Bool] {
        [
            "config": true,
            "routes": !routes.isEmpty,
            "cache": database.isReadable(),
        ]
    }

    public func shutdown() async {
        durable.sessions.stopAll()
        await durable.http.shutdown()
    }
}
