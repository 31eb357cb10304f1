import Aggregation
import CoreMetrics
import Foundation
import HTTPTypes
import Logging
import Model
import NIOCore

/// The hot path: answers a request on its connection's event loop, before the router, when it
/// is a plain `GET`/`HEAD` of a route whose rendered answer `AnswerMemo` holds, and gives
/// exactly what the router would (same headers and body, a request id, metrics, the access
/// line). Anything else — another method or path, a query the route refuses, `no-cache` or any
/// `Cache-Control`/`Pragma`, an `Origin`, `Connection` other than `keep-alive`, a body, a
/// refused host or key, too many headers, an answer not kept — goes on to the router, which
/// decides as always.
struct HotAnswers: Sendable {
    let routes: [String: Route]
    let access: AccessMiddleware
    let answers: AnswerMemo
    let aggregator: Aggregator
    let metrics: RequestMetricHandles
    let logger: Logger
    let serverName: String
    let dates = HTTPDate()
    /// `daygate_http_hot_answers_total`: the requests answered here (also counted in
    /// `daygate_http_requests_total` like every other).
    let answered: Counter

    init(runtime: GatewayRuntime, serverName: String) {
        var routes: [String: Route] = [:]
        for route in runtime.routes { routes[route.path] = route }
        self.routes = routes
        self.access = AccessMiddleware(config: runtime.config)
        self.answers = runtime.answers
        self.aggregator = runtime.aggregator
        self.metrics = runtime.metrics.requests
        self.logger = runtime.logger
        self.serverName = serverName
        self.answered = Counter(label: "daygate_http_hot_answers_total", factory: runtime.metrics.factory)
    }

    /// The response head and body for `request`, or nil when the router should answer it.
    func answer(_ request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        let started = ContinuousClock.now
        guard request.method == .get || request.method == .head, let target = request.path else { return nil }
        let headers = request.headerFields
        guard headers[.origin] == nil, headers[.cacheControl] == nil, headers[.pragma] == nil,
              headers[.transferEncoding] == nil, headers[.contentLength].map({ $0 == "0" }) ?? true,
              headers[values: .connection].allSatisfy({ $0.lowercased() == "keep-alive" }),
              RequestLimitsMiddleware.headersWithinLimits(headers)
        else { return nil }
        let path: Substring
        let query: Substring?
        if let mark = target.firstIndex(of: "?") {
            path = target[..<mark]
            query = target[target.index(after: mark)...]
        } else {
            path = target[...]
            query = nil
        }
        guard let route = routes[String(path)] else { return nil }
        guard case .serve(let profile, let client) = access.decide(
            path: route.path, authority: request.authority, authorization: headers[.authorization]
        ) else { return nil }
        guard let items = try? QueryItems.parse(query.map(String.init)),
              let resolved = try? aggregator.resolve(route: route, query: items, profileName: profile),
              let kept = answers.reuse(resolved.answerKey, now: aggregator.now())
        else { return nil }

        let id = headers[.requestID].flatMap { RequestIDMiddleware.isSane($0) ? $0 : nil } ?? RequestIDMiddleware.newID()
        var response = kept.response(method: request.method, ifNoneMatch: headers[values: .ifNoneMatch])
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.requestID] = id
        response.headers[.contentLength] = String(response.body?.readableBytes ?? 0)
        response.headers[.date] = dates.now
        response.headers[.server] = serverName
        let status = response.status.code
        metrics.record(route: route.path, method: request.method.rawValue, status: status, since: started)
        answered.increment()
        if logger.logLevel <= .info {
            var log = logger
            log[metadataKey: "request_id"] = .string(id)
            if let client { log[metadataKey: "client"] = .string(client) }
            RequestIDMiddleware.logAccess(log, method: request.method, path: String(path), status: status, started: started)
        }
        let body = request.method == .head ? nil : response.body
        return (HTTPResponse(status: response.status, headerFields: response.headers), body)
    }
}
