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
/// is a plain HTTP/1.1 `GET`/`HEAD` of a route (a route file's without path parameters — exact
/// paths only, so `/v1/knowledge/items/{id}` is always the router's — or `/v1/summary`) whose answer
/// `AnswerMemo` holds, and gives
/// exactly what the router would (same headers and body, a request id, metrics, the access
/// line). Anything else — another method, version or path, a query the route refuses,
/// `no-cache` or any `Cache-Control`/`Pragma`, an `Origin`, `Connection` other than
/// `keep-alive`, a body, a refused host or key, too many headers, an answer not kept — goes on
/// to the router, which decides as always.
///
/// A class: each connection's handler holds the current one, and a struct of this many
/// references would be copied out of the handler — a retain and a release of each — on every
/// request it answers.
final class HotAnswers: Sendable {
    /// A route the hot path serves, and how a request's query resolves against it.
    struct HotRoute: Sendable {
        let path: String
        let resolve:
            @Sendable (_ query: [(String, String)], _ profile: String) throws(ErrorDetail) -> Aggregator.ResolvedRequest
    }

    let routes: [String: HotRoute]
    let admission: Admission
    let answers: AnswerMemo
    let aggregator: Aggregator
    let metrics: RequestMetricHandles
    let logger: Logger
    /// Whether answers are logged (`info`): decided once, the level does not change.
    let logsAccess: Bool
    let dates = HTTPDate()
    /// Which kept answer a request target stands for (`Targets`).
    let targets = Targets()
    /// `daygate_http_hot_answers_total`: the requests answered here (also counted in
    /// `daygate_http_requests_total` like every other).
    let answered: Counter

    init(runtime: GatewayRuntime) {
        var routes: [String: HotRoute] = [:]
        let aggregator = runtime.aggregator
        // Exact paths only: a route with `{name}` path parameters is the router's (its literal
        // path, braces and all, must not be taken for a request target here). A household
        // route's answer is the household's, not the asking profile's: the router's too.
        for route in runtime.routes where route.pathParameterNames.isEmpty && route.household == nil {
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
        self.admission = Admission(config: runtime.config)
        self.answers = runtime.answers
        self.aggregator = runtime.aggregator
        self.metrics = runtime.metrics.requests
        self.logger = runtime.logger
        self.logsAccess = runtime.logger.logLevel <= .info
        self.answered = Counter(label: "daygate_http_hot_answers_total", factory: runtime.metrics.factory)
    }

    /// What one connection asked last and what it came to, kept by its `HotAnswerHandler`: a
    /// polling client asks the same thing again and again on a keep-alive connection, and then
    /// skips the access decision, the query, the shared tables and their locks. It holds for the
    /// whole second it was made in (what a target resolves to changes only with the day), for
    /// the same target, `Host` and `Authorization`; its kept answer while `AnswerMemo` would
    /// still give it. A class, so a repeated request changes it in place instead of copying its
    /// strings.
    final class Recent {
        let target: String
        let host: String?
        let authorization: String?
        let second: Int64
        /// The head's end with this second's `Date` (`HTTPDate`).
        let dateTail: ByteBuffer
        let route: String
        let client: String?
        let key: String
        var kept: AnswerMemo.HotAnswer?
        /// The request metrics of each (method, status) answered on this connection.
        var series: [Series] = []

        struct Series {
            var method: HTTPRequest.Method
            var status: Int
            var handles: RequestMetricHandles.Handles
        }

        init(
            target: String, host: String?, authorization: String?, second: Int64, dateTail: ByteBuffer, route: String,
            client: String?, key: String
        ) {
            self.target = target
            self.host = host
            self.authorization = authorization
            self.second = second
            self.dateTail = dateTail
            self.route = route
            self.client = client
            self.key = key
        }

        func holds(target: String, host: String?, authorization: String?, second: Int64) -> Bool {
            self.second == second && self.target == target && self.host == host && self.authorization == authorization
        }
    }

    /// The HTTP/1.1 response to `request` — its head, and its body unless it has none (the
    /// kept answer's own buffer, not a copy) — or nil when the router should answer it.
    /// `recent` is the connection's memory of its last request (`Recent`).
    func answer(
        _ request: HTTPRequestHead, allocator: ByteBufferAllocator, recent: inout Recent?
    ) -> (head: ByteBuffer, body: ByteBuffer?)? {
        let started = ContinuousClock.now
        let method: HTTPRequest.Method
        switch request.method {
        case .GET: method = .get
        case .HEAD: method = .head
        default: return nil
        }
        let target = request.uri
        guard request.version == .http1_1, target.utf8.first == UInt8(ascii: "/") else { return nil }
        let head = HotRequestHead(request.headers)
        guard !head.passOn else { return nil }
        let now = aggregator.now()
        let second = Int64(now.timeIntervalSince1970.rounded(.down))

        let asked: Recent
        if let known = recent,
            known.holds(target: target, host: head.host, authorization: head.authorization, second: second)
        {
            asked = known
        } else {
            let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
            guard let route = routes[path],
                case .serve(let profile, let client, corsOrigin: nil) = admission.decide(
                    Admission.Asked(
                        method: method, path: route.path, host: head.host, authorization: head.authorization,
                        headerCount: head.count, headerBytes: head.bytes
                    )
                ),
                let key = answerKey(route: route, target: target, profile: profile, second: second, now: now)
            else { return nil }
            asked = Recent(
                target: target, host: head.host, authorization: head.authorization, second: second,
                dateTail: dates.headTail(second: second), route: route.path, client: client, key: key
            )
            recent = asked
        }
        let kept: AnswerMemo.HotAnswer
        if let known = asked.kept, known.isReusable(now: now, generation: answers.generation) {
            known.hits.count()
            kept = known
        } else {
            guard let found = answers.reuseHot(asked.key, now: now) else { return nil }
            kept = found
            asked.kept = found
        }

        let id = head.requestID.flatMap { RequestIDMiddleware.isSane($0) ? $0 : nil } ?? RequestIDMiddleware.newID()
        let answer = kept.wire.head(method: method, ifNoneMatch: head.ifNoneMatch)
        var response = allocator.buffer(capacity: answer.bytes.readableBytes + 32 + asked.dateTail.readableBytes)
        response.writeImmutableBuffer(answer.bytes)
        response.writeStaticString("X-Request-Id: ")
        response.writeString(id)
        response.writeImmutableBuffer(asked.dateTail)

        if let series = asked.series.first(where: { $0.method == method && $0.status == answer.status }) {
            series.handles.record(since: started)
        } else {
            let handles = metrics.handles(route: asked.route, method: method.rawValue, status: answer.status)
            handles.record(since: started)
            asked.series.append(.init(method: method, status: answer.status, handles: handles))
        }
        answered.increment()
        if logsAccess {
            var log = logger
            log[metadataKey: "request_id"] = .string(id)
            if let client = asked.client { log[metadataKey: "client"] = .string(client) }
            let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
            RequestIDMiddleware.logAccess(log, method: method, path: path, status: answer.status, started: started)
        }
        return (response, answer.withBody ? kept.wire.body : nil)
    }

    /// The `AnswerMemo` key for `target` asked by `profile`: remembered per whole second of the
    /// gateway's clock, because what a request resolves to changes only with the day ("today"
    /// parameters), and days start on a whole second.
    private func answerKey(route: HotRoute, target: String, profile: String, second: Int64, now: Date) -> String? {
        let asked = Targets.Asked(profile: profile, target: target)
        if let known = targets.key(for: asked, second: second) { return known }
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
        guard let items = try? QueryItems.parse(query), let resolved = try? route.resolve(items, profile) else {
            return nil
        }
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
