import Aggregation
import CoreMetrics
import Foundation
import HTTPTypes
import Logging
import Model
import NIOCore
import NIOHTTP1
import Synchronization

/// The hot path: answers a request on its connection's event loop, before the router, when it
/// is a plain HTTP/1.1 `GET`/`HEAD` of a route (a route file's, or `/v1/summary`) whose answer
/// `AnswerMemo` holds, and gives
/// exactly what the router would (same headers and body, a request id, metrics, the access
/// line). Anything else — another method, version or path, a query the route refuses,
/// `no-cache` or any `Cache-Control`/`Pragma`, an `Origin`, `Connection` other than
/// `keep-alive`, a body, a refused host or key, too many headers, an answer not kept — goes on
/// to the router, which decides as always.
struct HotAnswers: Sendable {
    /// A route the hot path serves, and how a request's query resolves against it.
    struct HotRoute: Sendable {
        let path: String
        let resolve: @Sendable (_ query: [(String, String)], _ profile: String) throws(ErrorDetail) -> Aggregator.ResolvedRequest
    }

    let routes: [String: HotRoute]
    let access: AccessMiddleware
    let answers: AnswerMemo
    let aggregator: Aggregator
    let metrics: RequestMetricHandles
    let logger: Logger
    let dates = HTTPDate()
    /// Which kept answer a request target stands for (`Targets`).
    let targets = Targets()
    /// `X-Content-Type-Options` and `Server`, the headers every answer carries.
    let common: ByteBuffer
    /// `daygate_http_hot_answers_total`: the requests answered here (also counted in
    /// `daygate_http_requests_total` like every other).
    let answered: Counter

    init(runtime: GatewayRuntime, serverName: String) {
        var routes: [String: HotRoute] = [:]
        let aggregator = runtime.aggregator
        for route in runtime.routes {
            routes[route.path] = HotRoute(path: route.path) { query, profile throws(ErrorDetail) in
                try aggregator.resolve(route: route, query: query, profileName: profile)
            }
        }
        let summary = runtime.summary
        routes[SummaryService.path] = HotRoute(path: SummaryService.path) { query, profile throws(ErrorDetail) in
            try SummaryService.checkQuery(query)
            return try summary.resolve(profileName: profile)
        }
        self.routes = routes
        self.access = AccessMiddleware(config: runtime.config)
        self.answers = runtime.answers
        self.aggregator = runtime.aggregator
        self.metrics = runtime.metrics.requests
        self.logger = runtime.logger
        self.common = ByteBuffer(string: "X-Content-Type-Options: nosniff\r\nServer: \(serverName)\r\n")
        self.answered = Counter(label: "daygate_http_hot_answers_total", factory: runtime.metrics.factory)
    }

    /// The HTTP/1.1 response to `request` — its head, and its body unless it has none (the
    /// kept answer's own buffer, not a copy) — or nil when the router should answer it.
    func answer(_ request: HTTPRequestHead, allocator: ByteBufferAllocator) -> (head: ByteBuffer, body: ByteBuffer?)? {
        let started = ContinuousClock.now
        let method: HTTPRequest.Method
        switch request.method {
        case .GET: method = .get
        case .HEAD: method = .head
        default: return nil
        }
        let headers = request.headers
        let target = request.uri
        guard request.version == .http1_1, target.utf8.first == UInt8(ascii: "/"),
              !headers.contains(name: "origin"), !headers.contains(name: "cache-control"), !headers.contains(name: "pragma"),
              !headers.contains(name: "transfer-encoding"), headers.first(name: "content-length").map({ $0 == "0" }) ?? true,
              !headers.contains(name: "connection") || headers["connection"].allSatisfy({ $0.lowercased() == "keep-alive" }),
              RequestLimitsMiddleware.headersWithinLimits(headers)
        else { return nil }
        let path = target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
        guard let route = routes[String(path)],
              case .serve(let profile, let client) = access.decide(
                  path: route.path, authority: headers.first(name: "host"), authorization: headers.first(name: "authorization")
              )
        else { return nil }
        let now = aggregator.now()
        guard let key = answerKey(route: route, target: target, profile: profile, now: now),
              let wire = answers.reuseWire(key, now: now)
        else { return nil }

        let id = headers.first(name: "x-request-id").flatMap { RequestIDMiddleware.isSane($0) ? $0 : nil }
            ?? RequestIDMiddleware.newID()
        let conditions = headers.contains(name: "if-none-match") ? headers["if-none-match"] : []
        let head = wire.head(method: method, ifNoneMatch: conditions)
        let date = dates.now
        var response = allocator.buffer(capacity: head.bytes.readableBytes + common.readableBytes + 64 + date.utf8.count)
        response.writeImmutableBuffer(head.bytes)
        response.writeImmutableBuffer(common)
        response.writeStaticString("X-Request-Id: ")
        response.writeString(id)
        response.writeStaticString("\r\nDate: ")
        response.writeString(date)
        response.writeStaticString("\r\n\r\n")

        metrics.record(route: route.path, method: method.rawValue, status: head.status, since: started)
        answered.increment()
        if logger.logLevel <= .info {
            var log = logger
            log[metadataKey: "request_id"] = .string(id)
            if let client { log[metadataKey: "client"] = .string(client) }
            RequestIDMiddleware.logAccess(log, method: method, path: String(path), status: head.status, started: started)
        }
        return (response, head.withBody ? wire.body : nil)
    }

    /// The `AnswerMemo` key for `target` asked by `profile`: remembered per whole second of the
    /// gateway's clock, because what a request resolves to changes only with the day ("today"
    /// parameters), and days start on a whole second.
    private func answerKey(route: HotRoute, target: String, profile: String, now: Date) -> String? {
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        let asked = Targets.Asked(profile: profile, target: target)
        if let known = targets.key(for: asked, second: second) { return known }
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
        guard let items = try? QueryItems.parse(query), let resolved = try? route.resolve(items, profile) else { return nil }
        let key = resolved.answerKey
        targets.remember(key, for: asked, second: second)
        return key
    }

    /// Request targets (path and query, as sent) and the answer key each resolved to in the
    /// current second, so that a repeated request skips parsing and resolving its query.
    final class Targets: Sendable {
        struct Asked: Hashable {
            var profile: String
            var target: String
        }

        private let known = Mutex<(second: Int64, keys: [Asked: String])>((0, [:]))
        /// Targets remembered at most in one second (distinct queries past it are resolved
        /// every time).
        private let limit = 256

        func key(for asked: Asked, second: Int64) -> String? {
            known.withLock { known in known.second == second ? known.keys[asked] : nil }
        }

        func remember(_ key: String, for asked: Asked, second: Int64) {
            known.withLock { known in
                if known.second != second { known = (second, [:]) }
                if known.keys.count < limit { known.keys[asked] = key }
            }
        }
    }
}
