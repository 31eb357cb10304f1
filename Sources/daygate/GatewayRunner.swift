import Cache
import Foundation
import Gateway
import Hummingbird
import Logging
import Model
import ServiceLifecycle

/// Runs a gateway until SIGINT or SIGTERM, then shuts down gracefully: in-flight requests
/// finish, the HTTP client closes, extra services (simulators) stop. SIGHUP reads the config
/// file and `routes/` again (`ReloadableGateway`).
struct GatewayRunner {
    var config: DaygateConfig
    var logger: Logger
    /// The config file, and how to read it again on SIGHUP (nil: nothing to reload).
    var configFile: String? = nil
    var reloadConfig: ReloadableGateway.ConfigSource? = nil
    var extraServices: [any Service] = []
    /// The backends run in this process (the demo's simulators).
    var upstreamInProcess = false

    func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        guard config.listen.isLoopback || !config.clients.isEmpty else {
            throw FailureMessage(
                text: """
                    refusing to listen on \(config.listen): without client keys anyone on that network could read the \
                    household's data. Listen on 127.0.0.1 (or ::1), or add keys under `clients:` in the config.
                    """)
        }
        // Every connection, upstream socket and database file takes a descriptor: take all the
        // system allows, then hold connections to a budget below it.
        let descriptors = OpenFileLimit.raiseToHard()
        let runtime: GatewayRuntime
        do {
            runtime = try GatewayRuntime(config: config, logger: logger, upstreamInProcess: upstreamInProcess)
        } catch let error as CustomStringConvertible {
            throw FailureMessage(text: "cannot start: \(error.description)")
        }
        let limits = config.limits
        let budget = runtime.connections.limit
        let raised = descriptors.after > descriptors.before ? ", raised from \(descriptors.before)" : ""
        logger.info(
            """
            connection budget \(budget) (limits.max_connections \(limits.maxConnections), open-file limit \
            \(descriptors.after)\(raised)); header timeout \(limits.headerTimeout), body timeout \(limits.bodyTimeout), \
            idle timeout \(limits.idleTimeout)
            """
        )
        if budget < limits.maxConnections {
            logger.warning(
                """
                the open-file limit (\(descriptors.after)) holds the connection budget at \(budget) instead of \
                \(limits.maxConnections); raise it (ulimit -n, or LimitNOFILE= in a systemd unit) for more
                """
            )
        }
        let gateway = ReloadableGateway(runtime: runtime, file: configFile, source: reloadConfig)
        let app = GatewayApplication.make(gateway: gateway, onServerRunning: onListening)
        // Services stop in reverse order: live streams end first, so in-flight requests can drain.
        let group = ServiceGroup(
            configuration: .init(
                services: [app, BackendHintService(gateway: gateway), ReloadSignalService(gateway: gateway)]
                    + extraServices + [StreamCloser(feed: runtime.cache.changes)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
            ))
        do {
            try await group.run()
        } catch {
            await runtime.shutdown()
            throw FailureMessage(text: "the gateway stopped: \(error)")
        }
        await runtime.shutdown()
    }
}

/// Ends every `/v1/stream` connection when shutdown begins; they would otherwise keep the
/// server waiting for requests that never finish.
struct StreamCloser: Service {
    let feed: CacheChangeFeed

    func run() async throws {
        try? await gracefulShutdown()
        feed.finish()
    }
}
