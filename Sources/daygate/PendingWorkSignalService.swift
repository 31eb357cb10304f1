import Gateway
import ServiceLifecycle
import UnixSignals

/// Logs what the gateway is working on and waiting for on each SIGUSR1 (`kill -USR1`):
/// `GatewayRuntime.pendingWorkReport`, one log line each.
struct PendingWorkSignalService: Service {
    let gateway: ReloadableGateway

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1)
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                let runtime = gateway.runtime
                for line in await runtime.pendingWorkReport() {
                    runtime.logger.notice("SIGUSR1: \(line)")
                }
            }
        }
    }
}
