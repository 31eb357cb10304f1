import Aggregation
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Model

/// Builds the Hummingbird application: middleware, one handler per route file, the summary,
/// sources, metrics and health endpoints, and the dashboard from static/.
public enum GatewayApplication {
    /// The `Server` header of every answer.
    static let serverName = "daygate"
    /// The change stream of every household member (the `household` scope).
    public static let householdStreamPath = "/v1/household/stream"

    /// - Parameter status: the config's state for `/readyz` (`ReloadableGateway` shares its
    ///   own); by default one that says the runtime's config was loaded when it was made.
    public static func router(runtime: GatewayRuntime, heartbeat: Duration = .seconds(15)) -> Router<
        GatewayRequestContext
    > {
        router(
            runtime: runtime, heartbeat: heartbeat,
            status: ConfigStatusBox(ConfigStatus(file: nil, loadedAt: runtime.loadedAt)))
    }

    static func router(runtime: GatewayRuntime, heartbeat: Duration, status configStatus: ConfigStatusBox) -> Router<
        GatewayRequestContext
    > {
        let router = Router(context: GatewayRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestMetricsMiddleware(handles: runtime.metrics.requests))
        router.add(middleware: RequestIDMiddleware())
        // The router's own table (filled once every route is registered) tells admission
        // which paths are routes, so a route added later needs a key without being listed.
        let allowed = AllowedMethods()
        router.add(middleware: AdmissionMiddleware(admission: Admission(config: runtime.config, routes: allowed)))
        router.add(middleware: ErrorJSONMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware(allowed: allowed))
        router.add(middleware: StaticFileGuard())
        if FileManager.default.fileExists(atPath: runtime.config.staticDir) {
            router.add(
                middleware: FileMiddleware(runtime.config.staticDir, searchForIndexHtml: true, logger: runtime.logger))
        }

        let healthy = Data(#"{"status":"ok"}"#.utf8)
        let proof = runtime.heartbeat
        router.get("/healthz") { _, _ in
            // Answered at all only while the loops run; the heartbeat also needs the executor.
            guard proof.isAlive() else {
                let age = proof.age().map { " (last proof \($0.components.seconds) s ago)" } ?? ""
                throw GatewayError(
                    .serviceUnavailable, code: "stalled",
                    message: "the gateway's heartbeat has stopped\(age): work queued on it does not run")
            }
            return JSONResponse.make(status: .ok, body: healthy)
        }
        router.get("/readyz") { _, _ in
            let checks = runtime.readiness()
            let ready = checks.values.allSatisfy { $0 }
            let zone = runtime.config.timeZone
            let storage = StorageReport(runtime.database.storageHealth, zone: zone)
            let config = configStatus.status
            struct Readiness: Encodable {
                var status: String
                var checks: [String: Bool]
                var storage: StorageReport
                var config: ConfigReport
            }
            // Serving, but writes to the state folder fail, or the config file's last reload
            // failed (the config before it serves on): "degraded", still 200 (cached answers
            // come from memory; writes with an Idempotency-Key are refused).
            let reloadFailed = config.lastReload?.result == .failed
            let status = !ready ? "not_ready" : storage.healthy && !reloadFailed ? "ready" : "degraded"
            return try JSONResponse.make(
                status: ready ? .ok : .serviceUnavailable,
                body: JSONCoding.encode(
                    Readiness(
                        status: status, checks: checks, storage: storage,
                        config: ConfigReport(config, zone: zone, redactor: runtime.http.redactor)))
            )
        }
        let spec = OpenAPIDocumentOnDemand(routes: runtime.routes)
        router.get("/openapi.json") { _, _ in
            JSONResponse.make(status: .ok, body: spec.json)
        }
        router.get("/metrics") { _, _ in
            let text = await runtime.metrics.exposition(
                cache: runtime.cache, monitor: runtime.http.monitor, connections: runtime.connections
            )
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        router.get("/v1/sources") { _, context in
            let report = await SourcesReport.make(profile: context.profile, runtime: runtime)
            return try JSONResponse.make(
                status: .ok, body: JSONCoding.encode(report), headers: [.cacheControl: "no-store"])
        }
        let gatewayID = (try? runtime.database.gatewayID()) ?? ""
        router.get(RouterPath(Admission.identityPath)) { _, context in
            let report = ClientIdentityReport(
                gatewayID: gatewayID, config: runtime.config, client: context.client, profile: context.profile,
                scopes: context.scopes)
            return try JSONResponse.make(
                status: .ok, body: JSONCoding.encode(report), headers: [.cacheControl: "no-store"])
        }
        let summary = SummaryHandler(service: runtime.summary, answers: runtime.answers)
        router.get(RouterPath(SummaryService.path)) { request, context in
            try await summary.handle(request, context: context)
        }
        let householdSummary = HouseholdSummaryHandler(
            service: HouseholdSummaryService(summary: runtime.summary), answers: runtime.answers)
        router.get(RouterPath(HouseholdSummaryService.path)) { request, context in
            try await householdSummary.handle(request, context: context)
        }
        let calendarFeed = CalendarFeedHandler(service: CalendarFeedService(aggregator: runtime.aggregator))
        router.get(RouterPath(CalendarFeedService.path)) { request, context in
            try await calendarFeed.handle(request, context: context)
        }
        let stream = ChangeStreamHandler(
            feed: runtime.cache.changes, heartbeat: heartbeat, quota: runtime.durable.streams,
            streams: runtime.durable.openStreams, clients: runtime.config.clients
        )
        router.get("/v1/stream") { _, context in
            try stream.response(profile: context.profile, client: context.clientIdentity, clientName: context.client)
        }
        let members = runtime.config.household.map { household in
            HouseholdStreamMember.members(
                of: household, routes: runtime.routes.filter { $0.household != nil } + [runtime.summary.route])
        }
        router.get(RouterPath(householdStreamPath)) { _, context in
            guard let members else { throw GatewayError(.notFound, .noHousehold) }
            return try stream.response(
                profile: context.profile, client: context.clientIdentity, clientName: context.client, members: members)
        }
        WriteRoutes(runtime: runtime).register(on: router)
        let household = HouseholdService(aggregator: runtime.aggregator)
        for route in runtime.routes where route.household != nil {
            let handler = HouseholdRouteHandler(route: route, service: household, answers: runtime.answers)
            router.get(RouterPath(route.path)) { request, context in
                try await handler.handle(request, context: context)
            }
        }
        for route in runtime.routes where route.household == nil {
            let handler = AggregateRouteHandler(route: route, aggregator: runtime.aggregator, answers: runtime.answers)
            router.get(RouterPath(route.path)) { request, context in
                try await handler.handle(request, context: context)
            }
        }
        allowed.load(router.routes.map { ($0.path, $0.method) })
        return router
    }

    /// - Parameter hotPath: answer kept answers on the event loop (`HotAnswerHandler`); off
    ///   only to compare the two paths in tests.
    public static func make(
        runtime: GatewayRuntime, listen: ListenAddress? = nil, heartbeat: Duration = .seconds(15), hotPath: Bool = true,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        make(
            gateway: ReloadableGateway(runtime: runtime, heartbeat: heartbeat, hotPath: hotPath), listen: listen,
            onServerRunning: onServerRunning)
    }

    /// The application of a gateway that can reload: every request goes to its current router
    /// and hot-path answers; the listening socket, the connection budget and the server's
    /// settings are the first runtime's for as long as it runs.
    public static func make(
        gateway: ReloadableGateway, listen: ListenAddress? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let runtime = gateway.runtime
        let address = listen ?? runtime.config.listen
        let answers = gateway.hot
        let budget = runtime.connections
        let responder = ReloadingResponder(gateway: gateway)
        let logger = runtime.logger
        return Application(
            responder: responder,
            // Hummingbird's own responder closure writes through an `NIOAsyncChannel`, which needs
            // a task per connection; the gateway's connections park between requests and call the
            // responder themselves (`GatewayHTTP1Channel.answer`).
            server: HTTPServerBuilder { _ in
                GatewayHTTP1Channel(
                    respond: { request, channel in
                        try await responder.respond(
                            to: request,
                            context: GatewayRequestContext(source: .init(channel: channel, logger: logger)))
                    }, budget: budget, answers: answers)
            },
            // A deep accept queue: a burst of new connections (a dashboard wall, a load test)
            // must not overflow the default 256 and wait out SYN retransmits (1 s, 3 s, …); past
            // the connection budget new connections wait there too.
            configuration: .init(
                address: .hostname(address.host, port: address.port), serverName: Self.serverName, backlog: 1024,
                availableConnectionsDelegate: budget.acceptGate
            ),
            services: [OpenConnectionsCloser(budget: budget)],
            onServerRunning: { channel in
                await onServerRunning(channel.localAddress?.port ?? address.port)
            },
            logger: runtime.logger
        )
    }
}

enum JSONResponse {
    /// A JSON answer; a 204 carries no body and so no Content-Type.
    static func make(status: HTTPResponse.Status, body: Data, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        if status != .noContent { headers[.contentType] = "application/json; charset=utf-8" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
