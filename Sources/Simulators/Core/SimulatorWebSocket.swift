import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

// WebSocket support for simulators. A backend opts in with ``SimulatorBackend/servesWebSockets``;
// Core then serves HTTP/1 with WebSocket upgrades (`HTTP1WebSocketUpgradeChannel`) and asks the
// backend for a handler per upgrade request. Backends that do not opt in keep the plain HTTP/1
// server, unchanged.

/// Serves one upgraded WebSocket connection. Returning closes it normally (1000); throwing closes
/// it with 1011. When the simulator stops, the handler is cancelled and the connection closed.
typealias SimWebSocketHandler =
    @Sendable (_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, _ logger: Logger) async throws ->
    Void

/// Lets waits outside the server's task tree (the upgrade decision runs in a task of its own)
/// end as soon as ``RunningSimulator/stop(gracePeriod:)`` starts.
final class SimulatorStopSignal: Sendable {
    private struct State {
        var stopped = false
        var sleepers: [Int: Task<Void, any Error>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Ends every pending ``sleep(for:)`` early; later ones return at once.
    func stop() {
        let sleepers = state.withLock { s in
            s.stopped = true
            defer { s.sleepers = [:] }
            return Array(s.sleepers.values)
        }
        for sleeper in sleepers { sleeper.cancel() }
    }

    /// Sleeps for `duration`; false when the simulator began stopping first.
    func sleep(for duration: Duration) async -> Bool {
        let sleeper = Task { try await Task.sleep(for: duration) }
        let id: Int? = state.withLock { s in
            if s.stopped { return nil }
            defer { s.nextID += 1 }
            s.sleepers[s.nextID] = sleeper
            return s.nextID
        }
        guard let id else {
            sleeper.cancel()
            return false
        }
        let slept = await withTaskCancellationHandler {
            (try? await sleeper.value) != nil
        } onCancel: {
            sleeper.cancel()
        }
        state.withLock { _ = $0.sleepers.removeValue(forKey: id) }
        return slept
    }
}

extension SimulatorServer {
    /// The server builder: plain HTTP/1 for backends without WebSockets (exactly as before),
    /// otherwise HTTP/1 with WebSocket upgrades decided by ``webSocketUpgrade(head:channel:backend:control:stopSignal:)``.
    static func serverBuilder<Backend: SimulatorBackend>(
        backend: Backend,
        control: SimulatorControl,
        stopSignal: SimulatorStopSignal,
        connections: SimulatorConnections
    ) -> HTTPServerBuilder {
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [FaultChannelHandler(control: control)])
        guard backend.servesWebSockets else {
            return HTTPServerBuilder { responder in
                TrackedChildChannel(
                    base: HTTP1Channel(responder: responder, configuration: http1), connections: connections)
            }
        }
        // Like uvicorn's `websockets`: a ping every 20 s, text must be valid UTF-8. A short close
        // timeout keeps stop() prompt when a client does not answer the closing handshake.
        let ws = WebSocketServerConfiguration(
            maxFrameSize: 1 << 20,
            autoPing: .enabled(timePeriod: .seconds(20)),
            closeTimeout: .seconds(1),
            validateUTF8: true
        )
        return HTTPServerBuilder { responder in
            TrackedChildChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: .init(http1: http1, ws: ws)
                ) { head, channel, _ in
                    await webSocketUpgrade(
                        head: head, channel: channel, backend: backend, control: control, stopSignal: stopSignal)
                },
                connections: connections)
        }
    }

    /// Decides a WebSocket upgrade request (the first request on a connection carrying
    /// `Upgrade: websocket`; ``FaultChannelHandler`` does not see these). Mirrors Core's HTTP path:
    /// `/_sim/` paths are never upgraded; anything else is counted as `"GET /path"`, then faults
    /// apply: `latency_ms` delays the answer; `down` (either value) aborts the connection with an
    /// RST and no answer; a firing `error_status` refuses the upgrade (Hummingbird answers 400 and
    /// closes); `garbage` does not affect WebSockets. Finally the backend's handler, or a refusal
    /// (400) when it has none for the path.
    ///
    /// Why `refuse` resets here instead of closing with a FIN as it does for HTTP: a FIN before the
    /// `101` leaves HummingbirdWSClient waiting forever (it allows remote half-closure and NIO's
    /// client upgrade handler ignores the input closing), and not even task cancellation ends
    /// that wait. A server that is really down refuses connections, which clients see as a fast
    /// failure; an RST gives them that.
    static func webSocketUpgrade<Backend: SimulatorBackend>(
        head: HTTPRequest,
        channel: any Channel,
        backend: Backend,
        control: SimulatorControl,
        stopSignal: SimulatorStopSignal
    ) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let request = SimRequest(head: head, body: ByteBuffer(), remoteAddress: channel.remoteAddress)
        if SimRequest.isControlPath(request.path) { return .dontUpgrade }

        control.record(method: request.method.rawValue, path: request.path)
        let faults = control.faults.applying(to: "GET")
        if faults.latencyMs > 0 {
            guard await stopSignal.sleep(for: .milliseconds(faults.latencyMs)) else { return .dontUpgrade }
        }
        if faults.down != nil {
            // Closing the channel right here would fail Hummingbird's pending upgrade (logged as an
            // error); instead the refusal goes ahead into a handler that eats it and resets.
            try? await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(RefusedUpgradeKiller(), position: .last)
            }.get()
            return .dontUpgrade
        }
        if let status = faults.errorStatus, (100...599).contains(status), faults.errorRate > 0,
            faults.errorRate >= 1 || Double.random(in: 0..<1) < faults.errorRate
        {
            return .dontUpgrade
        }
        guard !stopSignal.isStopped, let handler = backend.webSocketHandler(for: request) else { return .dontUpgrade }
        return .upgrade([:]) { inbound, outbound, context in
            // Stopping cancels the handler, so a backend's receive loop never holds up shutdown;
            // the connection then closes normally (1000), as Hummingbird's shutdown handler does.
            do {
                try await cancelWhenGracefulShutdown {
                    try await handler(inbound, outbound, context.logger)
                }
            } catch is CancellationError {
            }
        }
    }

}

/// Added behind NIO's upgrade handler when a `down` fault refuses a WebSocket upgrade: the
/// replayed request never reaches the HTTP handlers (so it is neither answered nor counted twice),
/// the 400 Hummingbird writes for the refusal is swallowed, and its flush resets the connection
/// (SO_LINGER 0, so the kernel sends an RST): the client gets no answer at all.
final class RefusedUpgradeKiller: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    private var killed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promise?.succeed(())
    }

    func flush(context: ChannelHandlerContext) {
        guard !killed else { return }
        killed = true
        FaultChannelHandler.kill(context: context, reset: true)
    }
}
