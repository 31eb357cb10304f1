import Aggregation
import CoreMetrics
import Foundation
import Logging
import Model
import ServiceLifecycle

/// Once the server listens, fetches again — for every profile, with the route's default
/// parameters — each route marked `refresh_on_start` (`routes/today.yaml`), as a client sending
/// `Cache-Control: no-cache` would. After a start (an upgrade, a power cut) the first day a wall
/// asks for then finds the connections to its backends open (TLS included) and their sessions
/// proven, and the cache brought up to date, instead of paying for all of that itself.
///
/// - Readiness does not wait for it: it begins when the server listens (`listening`).
/// - It logs in only where a backend has no kept session, as any request would; a kept session
///   is used (and renewed if it ran out) as on any other fetch.
/// - Only the backends a profile configures are called: a route's sections for the others are
///   absent, as in its answers.
/// - A backend that fails keeps what the cache held, as any failed refetch does.
public struct StartRefreshService: Service {
    let gateway: ReloadableGateway
    /// Yields once the server listens.
    let listening: AsyncStream<Void>

    public init(gateway: ReloadableGateway, listening: AsyncStream<Void>) {
        self.gateway = gateway
        self.listening = listening
    }

    public func run() async throws {
        let gateway = self.gateway
        let listening = self.listening
        // `daygate_start_refresh_running` is 1 until the refresh has ended (tests and operators
        // that must not meet it wait for 0).
        let running = Gauge(label: "daygate_start_refresh_running", factory: gateway.runtime.metrics.factory)
        running.record(1)
        await cancelWhenGracefulShutdown {
            var started = listening.makeAsyncIterator()
            guard await started.next() != nil else { return }
            await Self.refresh(runtime: gateway.runtime)
        }
        running.record(0)
        // A service that returns before shutdown stops the whole group: stay until then.
        try? await gracefulShutdown()
    }

    /// One route refreshed for one profile.
    public struct Refresh: Sendable, Equatable {
        public var route: String
        public var profile: String

        public init(route: String, profile: String) {
            self.route = route
            self.profile = profile
        }
    }

    /// What a start refreshes: each route marked `refresh_on_start` for each profile, in a
    /// fixed order (profiles, then routes, by name).
    public static func plan(routes: [Route], profiles: some Sequence<String>) -> [Refresh] {
        let marked = routes.filter(\.refreshOnStart).map(\.path).sorted()
        return profiles.sorted().flatMap { profile in marked.map { Refresh(route: $0, profile: profile) } }
    }

    /// Runs `plan` on `runtime`, every profile at once; returns each refresh with whether its
    /// answer came back complete.
    @discardableResult
    public static func refresh(runtime: GatewayRuntime) async -> [(refresh: Refresh, complete: Bool)] {
        let refreshes = plan(routes: runtime.routes, profiles: runtime.config.profiles.keys)
        guard !refreshes.isEmpty else { return [] }
        let routes = Dictionary(runtime.routes.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let aggregator = runtime.aggregator
        let logger = runtime.logger
        let started = ContinuousClock.now
        let outcomes = await withTaskGroup(of: (Refresh, Bool).self) { group in
            for refresh in refreshes {
                guard let route = routes[refresh.route] else { continue }
                group.addTask {
                    do throws(ErrorDetail) {
                        let answer = try await aggregator.run(
                            route: route, query: [], profileName: refresh.profile, forceRefresh: true)
                        return (refresh, answer.complete)
                    } catch {
                        logger.warning(
                            "refresh on start failed",
                            metadata: [
                                "route": "\(refresh.route)", "profile": "\(refresh.profile)", "error": "\(error.code)",
                            ])
                        return (refresh, false)
                    }
                }
            }
            var outcomes: [(refresh: Refresh, complete: Bool)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let incomplete = outcomes.filter { !$0.complete }.map { "\($0.refresh.route) of \($0.refresh.profile)" }
        logger.info(
            "refreshed on start",
            metadata: [
                "answers": "\(outcomes.count)",
                "incomplete": "\(incomplete.isEmpty ? "none" : incomplete.joined(separator: ", "))",
                "duration_ms": "\(Int((ContinuousClock.now - started) / .milliseconds(1)))",
            ])
        return outcomes
    }
}
