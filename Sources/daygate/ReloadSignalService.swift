import Gateway
import ServiceLifecycle
import UnixSignals

/// Reloads the gateway's config and routes on each SIGHUP (`systemctl reload daygate`,
/// `kill -HUP`), until shutdown begins.
struct ReloadSignalService: Service {
    let gateway: ReloadableGateway

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                gateway.runtime.logger.info("SIGHUP: reading the config and routes again")
                await gateway.reload()
            }
        }
    }
}
