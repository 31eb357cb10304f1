import Cache
import Foundation
import Gateway
import Hummingbird
import Logging
import Model
import NIOCore
import NIOPosix
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
    /// `--debug-stall-after`: block every event loop after this long (watchdog tests).
    var stallAfter: Duration? = nil

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
        // systemd (`Type=notify`): READY=1 once the server listens, WATCHDOG=1 from each proof.
        let notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        let (listening, listened) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let app = GatewayApplication.make(gateway: gateway) { port in
            notifier?.send("READY=1\nSTATUS=serving on port \(port)")
            listened.yield()
            listened.finish()
            await onListening(port)
        }
        let watchdog = WatchdogService(
            heartbeat: runtime.heartbeat, loops: Array(MultiThreadedEventLoopGroup.singleton.makeIterator()),
            notifier: notifier, logger: logger, stallAfter: stallAfter)
        // Services stop in reverse order: live streams end first, so in-flight requests can drain.
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    app, watchdog, BackendHintService(gateway: gateway), ReloadSignalService(gateway: gateway),
                    PendingWorkSignalService(gateway: gateway),
                    StartRefreshService(gateway: gateway, listening: listening),
                ]
                    + extraServices + [StreamCloser(feed: runtime.cache.changes)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
            ))
        do {
            try await group.run()
        } catch {
            await runtime.shutdown()
            throw FailureMessage(text: "the gateway stopped: \(Self.describe(error))")
        }
        await runtime.shutdown()
    }

    /// Why the gateway stopped, in words: a taken address says what to do about it.
    static func describe(_ error: any Error) -> String {
        if let failure = error as? IOError, failure.errnoCode == EADDRINUSE {
            return
                "its address is in use: another program (perhaps another daygate) listens on that port. Stop it, or choose another port (`listen:` in the configuration, `serve --listen`, `demo --port`)"
        }
        return "\(error)"
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
