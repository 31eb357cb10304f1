import Backends
import Cache
import Logging
import Model
import ServiceLifecycle

/// Runs a backend's change hints for every profile while the gateway runs: each 8alls
/// `/ws` message ends the freshness of that profile's cached events, so the next request (and
/// every live dashboard, told over `/v1/stream`) gets them refetched. Stops on shutdown.
public struct BackendHintService: Service {
    let runtime: GatewayRuntime

    public init(runtime: GatewayRuntime) {
        self.runtime = runtime
    }

    public func run() async throws {
        let listeners: [(String, EightAllsHintListener)] = runtime.config.profiles.compactMap { name, profile in
            guard let endpoint = profile.eightalls, let url = EightAllsHintListener.url(for: endpoint) else {
                return nil
            }
            return (name, EightAllsHintListener(url: url))
        }
        guard !listeners.isEmpty else { return }
        let cache = runtime.cache
        let logger = runtime.logger
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for (profile, listener) in listeners {
                    group.addTask {
                        await listener.run(logger: logger) { type in
                            logger.debug("8alls hint", metadata: ["profile": "\(profile)", "type": "\(type)"])
                            await cache.expire(profile: profile, operation: "eightalls.events")
                        }
                    }
                }
            }
        }
    }
}
