import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Model
import NIOCore
import NIOHTTPTypes
import ServiceLifecycle
import Synchronization

// MARK: - Backend protocol

/// A request as a simulator backend sees it: the raw target split the way Starlette splits it.
struct SimRequest: Sendable {
    var method: HTTPRequest.Method
    /// The path as sent, still percent-encoded, without the query.
    var rawPath: String
    /// The percent-decoded path (what uvicorn puts in `scope["path"]`).
    var path: String
    /// Everything after the first `?`, raw; "" when there is none.
    var rawQuery: String
    var headers: HTTPFields
    /// The `Host` header.
    var authority: String?
    var body: ByteBuffer
    /// The socket peer of the request's connection.
    var remoteAddress: SocketAddress?

    init(head: HTTPRequest, body: ByteBuffer, remoteAddress: SocketAddress? = nil) {
        let target = head.path ?? "/"
        let (rawPath, rawQuery) = SimRequest.splitTarget(target)
        self.method = head.method
        self.rawPath = rawPath
        self.path = percentDecode(rawPath, plusAsSpace: false)
        self.rawQuery = rawQuery
        self.headers = head.headerFields
        self.authority = head.authority
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The IP address of the socket peer (what a server without proxy trust calls the client IP).
    var peerIP: String? { remoteAddress?.ipAddress }

    static func splitTarget(_ target: String) -> (path: String, query: String) {
        if let q = target.firstIndex(of: "?") {
            return (String(target[..<q]), String(target[target.index(after: q)...]))
        }
        return (target, "")
    }

    /// True for the simulator's own control paths, which are never faulted or counted.
    static func isControlPath(_ decodedPath: String) -> Bool {
        decodedPath == "/_sim" || decodedPath.hasPrefix("/_sim/")
    }
}

/// One simulated backend: its API, its extra `/_sim/` routes and its error shape.
protocol SimulatorBackend: Sendable {
    /// Answers an API request (faults have already been applied). ``Response/dropConnection``
    /// closes the request's connection without writing anything, like a server process that dies.
    func handle(_ request: SimRequest) async -> Response
    /// Answers a simulator-specific control route under `/_sim/`, or nil when unknown.
    func handleControl(_ request: SimRequest) async -> Response?
    /// The response for an injected `error_status`, in the backend's own error shape.
    func faultResponse(status: Int) -> Response
    /// Extra lines for `GET /_sim` describing the simulator-specific control routes.
    var controlRoutes: [String] { get }
    /// Whether the server accepts WebSocket upgrades at all. False (the default) keeps a plain
    /// HTTP/1 server; true serves HTTP/1 with upgrades, decided by ``webSocketHandler(for:)``.
    var servesWebSockets: Bool { get }
    /// The handler for a WebSocket upgrade request (the call is already counted and faults
    /// applied, see `SimulatorServer.webSocketUpgrade`), or nil to refuse the upgrade
    /// (Hummingbird answers 400 and closes). `request.body` is empty.
    func webSocketHandler(for request: SimRequest) -> SimWebSocketHandler?
}

extension SimulatorBackend {
    func handleControl(_ request: SimRequest) async -> Response? { nil }
    var controlRoutes: [String] { [] }
    var servesWebSockets: Bool { false }
    func webSocketHandler(for request: SimRequest) -> SimWebSocketHandler? { nil }
    /// FastAPI's `HTTPException` shape.
    func faultResponse(status: Int) -> Response {
        .json(.object(["detail": .string("simulated failure")]), status: status)
    }
}

// MARK: - Responder

/// Serves `/_sim/*`, applies latency / error / garbage faults, then hands over to the backend.
/// (`down` faults are applied earlier, by ``FaultChannelHandler``, because they must kill the
/// connection rather than answer.)
struct SimulatorResponder<Backend: SimulatorBackend>: HTTPResponder {
    typealias Context = SimulatorRequestContext

    let kind: SimulatorKind
    let control: SimulatorControl
    let backend: Backend
    static var maxBodySize: Int { 4 * 1024 * 1024 }

    func respond(to request: Request, context: SimulatorRequestContext) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBodySize)
        } catch {
            return .json(.object(["detail": .string("Request body too large")]), status: 413)
        }
        let sim = SimRequest(head: request.head, body: body, remoteAddress: context.channel.remoteAddress)

        if SimRequest.isControlPath(sim.path) {
            return await controlResponse(sim)
        }

        control.record(method: sim.method.rawValue, path: sim.path)
        let received = ContinuousClock.now
        defer {
            control.recordDuration(
                method: sim.method.rawValue, path: sim.path, milliseconds: (ContinuousClock.now - received).milliseconds
            )
        }
        let faults = control.faults.applying(to: sim.method.rawValue)
        if faults.latencyMs > 0 {
            do {
                // A stopping simulator does not sit out long latencies.
                try await cancelWhenGracefulShutdown {
                    try await Task.sleep(for: .milliseconds(faults.latencyMs))
                }
            } catch {
                return .json(.object(["detail": .string("simulator stopping")]), status: 503)
            }
        }
        if let status = faults.errorStatus, (100...599).contains(status), faults.errorRate > 0,
            faults.errorRate >= 1 || Double.random(in: 0..<1) < faults.errorRate
        {
            if faults.errorAfter {
                // The request is handled — its write done — and its answer lost.
                _ = await backend.handle(sim)
            }
            var response = backend.faultResponse(status: status)
            if status == 429, response.headers[.retryAfter] == nil {
                response.headers[.retryAfter] = String(SimulatorFaults.retryAfterSeconds)
            }
            return faults.hostileBody.map { response.carrying($0) } ?? response
        }
        if faults.garbage {
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: SimulatorFaults.garbageBody))
            )
        }
        var response = await backend.handle(sim)
        if let hostile = faults.hostileBody, !response.isDropConnection {
            if hostile != .slow { response.status = .ok }
            response = response.carrying(hostile)
        }
        if response.isDropConnection {
            // Closed before Hummingbird writes anything: the client sees a clean close, no bytes.
            try? await context.channel.close().get()
        }
        return response
    }

    private func controlResponse(_ sim: SimRequest) async -> Response {
        switch (sim.method, sim.path) {
        case (.get, "/_sim"), (.get, "/_sim/"):
            let routes: [String] =
                [
                    "GET /_sim/faults", "POST /_sim/faults", "GET /_sim/stats", "POST /_sim/stats/reset",
                ] + backend.controlRoutes
            return .json(.object(["kind": .string(kind.rawValue), "routes": .array(routes.map(JSONValue.string))]))
        case (.get, "/_sim/faults"):
            return .json(control.faults.json)
        case (.post, "/_sim/faults"), (.put, "/_sim/faults"):
            let faults: SimulatorFaults
            if sim.body.readableBytes == 0 {
                faults = .off
            } else {
                do {
                    faults = try JSONDecoder().decode(SimulatorFaults.self, from: Data(sim.body.readableBytesView))
                } catch {
                    return .simError("invalid faults: \(Self.describe(error))")
                }
            }
            control.setFaults(faults)
            return .json(faults.json)
        case (.delete, "/_sim/faults"):
            control.clearFaults()
            return .json(control.faults.json)
        case (.get, "/_sim/stats"):
            return .json(control.statsJSON)
        case (.post, "/_sim/stats/reset"):
            control.resetStats()
            return .json(control.statsJSON)
        default:
            if let response = await backend.handleControl(sim) { return response }
            return .simError("unknown simulator control route \(sim.method.rawValue) \(sim.path)", status: 404)
        }
    }

    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let ctx) = error {
            return ctx.debugDescription
        }
        if case DecodingError.typeMismatch(_, let ctx) = error {
            return "\(ctx.codingPath.map(\.stringValue).joined(separator: ".")): \(ctx.debugDescription)"
        }
        return "\(error)"
    }
}

/// The request context of a simulator: Hummingbird's basic one plus the request's connection, so
/// that a backend can drop it (``Response/dropConnection``) and see the socket peer.
struct SimulatorRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    var remoteAddress: SocketAddress? { channel.remoteAddress }
}

// MARK: - Connection-killing faults

/// Applies `down` faults to HTTP requests (a WebSocket upgrade request never reaches it; see
/// `SimulatorServer.webSocketUpgrade`). It sits after HTTP decoding (see `HTTP1Channel.Configuration`
/// `additionalChannelHandlers`), so it sees each request head before Hummingbird does.
///
/// When `down` is set and the request is not under `/_sim/`, it counts the call, swallows the
/// request, waits `latency_ms`, and then either resets the connection (`"reset"`: SO_LINGER 0, so
/// the kernel sends an RST) or closes it (`"refuse"`: a FIN without any answer). The listening
/// port itself stays open, because `/_sim/faults` must remain reachable to lift the fault; a
/// client therefore sees "connection closed/reset", never "connection refused".
final class FaultChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let control: SimulatorControl
    private var dropping = false

    init(control: SimulatorControl) {
        self.control = control
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if dropping { return }
        if case .head(let head) = unwrapInboundIn(data) {
            let (rawPath, _) = SimRequest.splitTarget(head.path ?? "/")
            let path = percentDecode(rawPath, plusAsSpace: false)
            let faults = control.faults.applying(to: head.method.rawValue)
            if !SimRequest.isControlPath(path), let down = faults.down {
                dropping = true
                control.record(method: head.method.rawValue, path: path)
                let reset = down == SimulatorFaults.reset
                if faults.latencyMs > 0 {
                    context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(faults.latencyMs))) {
                        Self.kill(context: context, reset: reset)
                    }
                } else {
                    Self.kill(context: context, reset: reset)
                }
                return
            }
        }
        context.fireChannelRead(data)
    }

    static func kill(context: ChannelHandlerContext, reset: Bool) {
        guard context.channel.isActive else { return }
        if reset, let provider = context.channel as? any SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            context.close(promise: nil)
        }
    }
}

// MARK: - Running simulator

/// A simulator listening on loopback. Keep it alive until ``stop()``: dropping the reference does
/// not stop the server.
public final class RunningSimulator: Sendable {
    /// Which backend this simulates.
    public let kind: SimulatorKind
    /// The bound port (the real one when started on port 0).
    public let port: Int
    /// The host it listens on (127.0.0.1 or ::1).
    public let host: String
    /// Faults and call statistics.
    public let control: SimulatorControl

    private let group: ServiceGroup
    private let task: Task<Void, Never>
    private let stopSignal: SimulatorStopSignal
    let connections: SimulatorConnections
    /// Whether a stop saw the server end (not left behind).
    let ended = Atomic<Bool>(false)

    init(
        kind: SimulatorKind, host: String, port: Int, control: SimulatorControl, group: ServiceGroup,
        task: Task<Void, Never>,
        stopSignal: SimulatorStopSignal = SimulatorStopSignal(), connections: SimulatorConnections
    ) {
        self.connections = connections
        self.kind = kind
        self.host = host
        self.port = port
        self.control = control
        self.group = group
        self.task = task
        self.stopSignal = stopSignal
    }

    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`).
    public var baseURL: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    /// The URL a gateway configuration uses for this backend, e.g. `http://127.0.0.1:PORT/api` for 8alls.
    public var apiBaseURL: String {
        baseURL + kind.apiPath
    }

    /// Stops the server gracefully (idle connections closed, in-flight requests finished) and
    /// waits until it is gone, within bounds: after `closeAfter` (at most `gracePeriod`) the
    /// connections on which no request was ever sent are closed by the simulator itself (the
    /// server's own shutdown does not close them, see `SimulatorConnections`); after
    /// `gracePeriod` every connection left is closed and the server task cancelled;
    /// `gracePeriod` after that, the wait ends whatever is left (reported in the log). Safe to
    /// call more than once, also concurrently. The caller's cancellation does not cut these waits
    /// short: a demo whose gateway failed to start (its port taken) stops its simulators from a
    /// cancelled task, and each stop used to return at once, its server still running and
    /// reported "left behind".
    public func stop(gracePeriod: Duration, closeAfter: Duration = .milliseconds(500)) async {
        await Task { await self.stopAndWait(gracePeriod: gracePeriod, closeAfter: closeAfter) }.value
    }

    private func stopAndWait(gracePeriod: Duration, closeAfter: Duration) async {
        stopSignal.stop()
        await group.triggerGracefulShutdown()
        let server = task
        let started = ContinuousClock.now
        if await !Self.ended(server, by: started + min(closeAfter, gracePeriod)) {
            connections.close(all: false)
            if await !Self.ended(server, by: started + gracePeriod) {
                connections.close(all: true)
                server.cancel()
                if await !Self.ended(server, by: started + gracePeriod * 2) {
                    Logger(label: "daygate.simulator.\(kind.rawValue)").error(
                        "the simulator's server did not end after it was stopped; left behind",
                        metadata: ["open_connections": "\(connections.count)"])
                    return
                }
            }
        }
        ended.store(true, ordering: .relaxed)
    }

    /// Whether `server` ended by `deadline`.
    private static func ended(_ server: Task<Void, Never>, by deadline: ContinuousClock.Instant) async -> Bool {
        do {
            try await BoundedWait.value(of: server, until: deadline)
            return true
        } catch {
            return false
        }
    }

    /// Stops the server; see ``stop(gracePeriod:)``.
    public func stop() async {
        await stop(gracePeriod: .seconds(5))
    }
}

// MARK: - Starting

enum SimulatorServer {
    /// Resolves a loopback host name to the address to bind, or throws for anything else.
    static func bindHost(for host: String) throws -> String {
        switch host.lowercased() {
        case "127.0.0.1", "localhost": return "127.0.0.1"
        case "::1", "[::1]": return "::1"
        default: throw SimulatorError.nonLoopbackHost(host)
        }
    }

    /// Starts `backend` behind Core's responder and fault handler.
    /// - Parameter serverName: the `Server` header on every response (nil: none).
    static func start<Backend: SimulatorBackend>(
        kind: SimulatorKind,
        backend: Backend,
        control: SimulatorControl,
        host: String,
        port: Int,
        logger: Logger?,
        serverName: String? = "uvicorn"
    ) async throws -> RunningSimulator {
        let bindHost = try bindHost(for: host)
        guard (0...65535).contains(port) else { throw SimulatorError.startFailed("port \(port) out of range") }

        var log = logger ?? Logger(label: "daygate.simulator.\(kind.rawValue)")
        if logger == nil { log.logLevel = .warning }
        log[metadataKey: "simulator"] = .string(kind.rawValue)

        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let failure = Mutex<String?>(nil)

        let responder = SimulatorResponder(kind: kind, control: control, backend: backend)
        let stopSignal = SimulatorStopSignal()
        let connections = SimulatorConnections()
        let app = Application(
            responder: responder,
            server: serverBuilder(
                backend: backend, control: control, stopSignal: stopSignal, connections: connections),
            configuration: .init(address: .hostname(bindHost, port: port), serverName: serverName),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    portContinuation.yield(port)
                }
                portContinuation.finish()
            },
            logger: log
        )

        // A ServiceGroup without signal handlers runs `app.run()` and gives a graceful shutdown.
        let group = ServiceGroup(configuration: .init(services: [app], logger: log))
        let task = Task<Void, Never> {
            do {
                try await group.run()
            } catch is CancellationError {
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            portContinuation.finish()
        }

        var iterator = portStream.makeAsyncIterator()
        guard let boundPort = await iterator.next() else {
            await group.triggerGracefulShutdown()
            task.cancel()
            await task.value
            let reason = failure.withLock { $0 } ?? "server stopped before it was listening"
            throw SimulatorError.startFailed(reason)
        }
        return RunningSimulator(
            kind: kind, host: bindHost, port: boundPort, control: control, group: group, task: task,
            stopSignal: stopSignal, connections: connections
        )
    }
}

// MARK: - HTTP helpers

extension Response {
    /// The answer of a server process that dies on the request: Core's responder closes the
    /// request's connection without writing any response, so a client sees a clean close (FIN)
    /// and no bytes. (Its body fails too, so nothing final could be sent even on a live connection.)
    static var dropConnection: Response {
        struct Dropped: Error {}
        return Response(
            status: .init(code: 103, reasonPhrase: "Early Hints"), headers: [dropConnectionMarker: "1"],
            body: .init { _ in throw Dropped() }
        )
    }

    /// Whether this is ``dropConnection``.
    var isDropConnection: Bool { headers[Self.dropConnectionMarker] != nil }

    private static let dropConnectionMarker = HTTPField.Name("x-simulator-drop-connection")!

    /// A compact JSON response with `content-type: application/json`.
    static func json(_ value: JSONValue, status: Int = 200, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(
            status: .init(code: status, reasonPhrase: reasonPhrase(status)), headers: fields,
            body: .init(byteBuffer: value.bytes))
    }

    /// An error about the simulator's own control surface (not a backend answer).
    static func simError(_ message: String, status: Int = 400) -> Response {
        .json(.object(["error": .string(message)]), status: status)
    }

    static func plainText(_ text: String, status: Int) -> Response {
        Response(
            status: .init(code: status, reasonPhrase: reasonPhrase(status)),
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}

/// Standard reason phrases (uvicorn writes them; HTTPTypes leaves them empty for custom codes).
func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 410: "Gone"
    case 413: "Request Entity Too Large"
    case 415: "Unsupported Media Type"
    case 422: "Unprocessable Entity"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: ""
    }
}

/// Percent-decodes `s` byte-wise (invalid escapes stay as they are, invalid UTF-8 becomes U+FFFD,
/// like Python's `unquote`); with `plusAsSpace` a literal `+` becomes a space first
/// (`unquote_plus`, what Starlette applies to query strings).
func percentDecode(_ s: some StringProtocol, plusAsSpace: Bool) -> String {
    let utf8 = Array(s.utf8)
    if !utf8.contains(UInt8(ascii: "%")) && !(plusAsSpace && utf8.contains(UInt8(ascii: "+"))) {
        return String(s)
    }
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count)
    var i = 0
    while i < utf8.count {
        let b = utf8[i]
        if b == UInt8(ascii: "%"), i + 2 < utf8.count, let hi = hexValue(utf8[i + 1]), let lo = hexValue(utf8[i + 2]) {
            out.append(hi << 4 | lo)
            i += 3
        } else {
            out.append(plusAsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            i += 1
        }
    }
    return String(decoding: out, as: UTF8.self)
}

private func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// Python's `urllib.parse.quote(s, safe=...)`: percent-encodes UTF-8 bytes outside the
/// unreserved set and `safe`.
func pythonQuote(_ s: String, safe: String) -> String {
    let safeBytes = Set(safe.utf8)
    var out = ""
    for b in s.utf8 {
        let isUnreserved =
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "-") || b == UInt8(ascii: "~")
        if isUnreserved || safeBytes.contains(b) {
            out.unicodeScalars.append(Unicode.Scalar(b))
        } else {
            out += String(format: "%%%02X", b)
        }
    }
    return out
}
