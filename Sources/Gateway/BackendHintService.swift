import Backends
import Cache
import Logging
import Model
import ServiceLifecycle

/// Runs every backend's change hints (`Backend.changeHints`) for every profile while the gateway
/// runs: each hint ends the freshness of the profile's cached answers it names, so the next
/// request (and every live dashboard, told over `/v1/stream`) gets them refetched. When a
/// reload changes a backend section the hints start again from the new config. Stops on
/// shutdown.
public struct BackendHintService: Service {
    let gateway: ReloadableGateway

    public init(runtime: GatewayRuntime) {
        self.init(gateway: ReloadableGateway(runtime: runtime, hotPath: false))
    }

    public init(gateway: ReloadableGateway) {
        self.gateway = gateway
    }

    public func run() async throws {
        let gateway = self.gateway
        await cancelWhenGracefulShutdown {
            var listening = Task { await Self.listen(runtime: gateway.runtime) }
            for await _ in gateway.accountsChanged {
                listening.cancel()
                await listening.value
                listening = Task { await Self.listen(runtime: gateway.runtime) }
            }
            listening.cancel()
            await listening.value
        }
    }

    /// Listens to the hints of `runtime`'s config until cancelled.
    private static func listen(runtime: GatewayRuntime) async {
        let hints: [(profile: String, backend: String, hints: ChangeHints)] = runtime.config.profiles.sorted {
            $0.key < $1.key
        }.flatMap { name, profile in
            BackendCatalog.all.compactMap { backend in
                backend.changeHints(for: profile).map { (name, backend.name, $0) }
            }
        }
        guard !hints.isEmpty else { return }
        let cache = runtime.cache
        let logger = runtime.logger
        await withTaskGroup(of: Void.self) { group in
            for (profile, backend, hints) in hints {
                group.addTask {
                    await hints.listen(logger) { type in
                        logger.debug(
                            "backend hint",
                            metadata: ["profile": "\(profile)", "backend": "\(backend)", "type": "\(type)"])
                        for operation in hints.operations {
                            await cache.expire(profile: profile, operation: operation)
                        }
                    }
                }
            }
        }
    }
}
