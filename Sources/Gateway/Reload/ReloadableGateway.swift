import Aggregation
import Foundation
import Hummingbird
import Logging
import Model
import Synchronization

/// A gateway whose config and routes can be read again while it runs (`reload()`, called on
/// `SIGHUP`): the new config is checked and planned (`ConfigReloadPlan`), a new
/// `GatewayRuntime` is made on the running one's durable parts, and its router and hot-path
/// answers replace the old ones for new requests — open connections stay open, requests on
/// their way finish with what they started with, the cache stays. When anything is wrong (the
/// YAML, a route file, a refusal) nothing changes and the problem, with its file and line, is
/// logged and shown in `/readyz`.
public final class ReloadableGateway: Sendable {
    /// Reads the config file again (with the command line's overrides applied).
    public typealias ConfigSource = @Sendable () throws -> DaygateConfig

    private struct Current {
        var runtime: GatewayRuntime
        var responder: RouterResponder<GatewayRequestContext>
    }

    private let current: Mutex<Current>
    private let source: ConfigSource?
    let statusBox: ConfigStatusBox
    let heartbeat: Duration
    /// The hot path's answers, nil when it is off.
    let hot: HotAnswersSource?
    /// One reload at a time, one more waiting, each asker's wait bounded.
    private let serial = ReloadSerial<ReloadOutcome>()
    /// Told when a reload changed a backend section (`BackendHintService` starts its hints
    /// again); keeps only the latest.
    let accountsChanged: AsyncStream<Void>
    private let accountsChangedContinuation: AsyncStream<Void>.Continuation

    /// - Parameters:
    ///   - file: the config file, shown in `/readyz`.
    ///   - source: how to read it again; without one `reload()` fails ("nothing to reload").
    public init(
        runtime: GatewayRuntime, file: String? = nil, source: ConfigSource? = nil, heartbeat: Duration = .seconds(15),
        hotPath: Bool = true
    ) {
        self.source = source
        self.heartbeat = heartbeat
        let status = ConfigStatusBox(ConfigStatus(file: file, loadedAt: runtime.loadedAt))
        self.statusBox = status
        self.current = Mutex(
            Current(
                runtime: runtime,
                responder: GatewayApplication.router(runtime: runtime, heartbeat: heartbeat, status: status)
                    .buildResponder()))
        self.hot = hotPath ? HotAnswersSource(HotAnswers(runtime: runtime)) : nil
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        accountsChanged = stream
        accountsChangedContinuation = continuation
    }

    deinit {
        accountsChangedContinuation.finish()
    }

    /// The runtime serving new requests.
    public var runtime: GatewayRuntime { current.withLock { $0.runtime } }

    public var status: ConfigStatus { statusBox.status }

    var responder: RouterResponder<GatewayRequestContext> { current.withLock { $0.responder } }

    /// Reads the config and `routes/` again and, when they are valid, serves new requests with
    /// them. Never throws: the outcome says what happened, and a failure leaves everything as
    /// it was.
    @discardableResult
    public func reload() async -> ReloadOutcome {
        let now = runtime.durable.now
        return await serial.run(
            timedOut: {
                ReloadOutcome(
                    at: now(), result: .failed,
                    problems: [
                        .init(
                            file: nil, line: nil, key: nil,
                            message:
                                "the reload did not end within \(ReloadSerial<ReloadOutcome>.limit.components.seconds) s; it goes on, and /readyz shows its outcome"
                        )
                    ])
            }
        ) { await self.reloadNow() }
    }

    private func reloadNow() async -> ReloadOutcome {
        let running = runtime
        let logger = running.logger
        let now = running.durable.now
        func fail(_ problems: [ReloadOutcome.Problem]) -> ReloadOutcome {
            let outcome = ReloadOutcome(at: now(), result: .failed, problems: problems)
            statusBox.update { $0.lastReload = outcome }
            let redactor = running.http.redactor
            for problem in problems {
                logger.error(
                    "reload refused, the running config serves on: \(redactor.redact(text: problem.description))")
            }
            return outcome
        }
        guard let source else {
            return fail([.init(file: nil, line: nil, key: nil, message: "started without a config file")])
        }
        let loaded: DaygateConfig
        do {
            loaded = try source()
        } catch let error as YAMLSourceError {
            return fail([.init(error)])
        } catch {
            return fail([.init(file: statusBox.status.file, line: nil, key: nil, message: "\(error)")])
        }
        let plan: ConfigReloadPlan
        do {
            plan = try ConfigReloadPlan.make(running: running.config, loaded: loaded)
        } catch {
            return fail([.init(file: statusBox.status.file, line: nil, key: "clients", message: error.description)])
        }
        let next: GatewayRuntime
        do {
            next = try GatewayRuntime(reloading: running, config: plan.effective)
        } catch let error as RouteLoadError {
            return fail(error.problems.map(ReloadOutcome.Problem.init))
        } catch {
            return fail([.init(file: plan.effective.routesDir, line: nil, key: nil, message: "\(error)")])
        }

        // Sessions and entries of changed accounts go before the switch (nothing new is made
        // from the old settings by the new runtime) and once more after it (what a request of
        // the old runtime stored meanwhile).
        await forget(plan.sections, in: running)
        let responder = GatewayApplication.router(runtime: next, heartbeat: heartbeat, status: statusBox)
            .buildResponder()
        current.withLock { $0 = Current(runtime: next, responder: responder) }
        hot?.replace(with: HotAnswers(runtime: next))
        // Streams opened with a key the new config removed or moved end now.
        let endedStreams = next.durable.openStreams.configChanged(to: next.config)
        await forget(plan.sections, in: running)

        var changes = plan.sections.map(\.description) + plan.changed
        let routesBefore = running.routes.map(\.path).sorted()
        let routesAfter = next.routes.map(\.path).sorted()
        if routesBefore != routesAfter {
            changes.append("routes: \(routesAfter.joined(separator: ", "))")
        }
        let outcome = ReloadOutcome(
            at: next.loadedAt, result: .applied, changes: changes, restartRequired: plan.restartRequired)
        statusBox.update {
            $0.loadedAt = next.loadedAt
            $0.generation += 1
            $0.lastReload = outcome
            $0.restartRequired = plan.restartRequired
        }
        if endedStreams > 0 {
            logger.notice("\(endedStreams) /v1/stream connection(s) ended: their client key was removed or changed")
        }
        if !plan.sections.isEmpty { accountsChangedContinuation.yield() }
        logger.info(
            "config reloaded: \(changes.isEmpty ? "no changes" : changes.joined(separator: "; ")); \(next.routes.count) routes"
        )
        for pending in plan.restartRequired {
            logger.warning("\(pending)")
        }
        return outcome
    }

    /// Forgets the sessions and drops the cached entries of each changed backend section.
    private func forget(_ sections: [ConfigReloadPlan.SectionChange], in runtime: GatewayRuntime) async {
        for section in sections {
            runtime.sessions.discard(profile: section.profile, backend: section.backend)
            runtime.http.monitor.forget(profile: section.profile, backend: section.backend)
            for operation in runtime.registry.operations.values where operation.backend == section.backend {
                await runtime.cache.invalidate(profile: section.profile, operation: operation.name)
            }
        }
    }
}

/// The application's responder: the current router's, looked up per request (each request in a
/// task of its own: `GatewayHTTP1Channel.answer`).
struct ReloadingResponder: HTTPResponder {
    let gateway: ReloadableGateway

    func respond(to request: Request, context: GatewayRequestContext) async throws -> Response {
        try await gateway.responder.respond(to: request, context: context)
    }
}
