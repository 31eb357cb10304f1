import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import ServiceLifecycle
import Synchronization

// The real Tickedify process dies on an unauthenticated dagelijkse-planning call, so the client
// sees its connection closed without any answer. A backend behind Core's `SimulatorServer` can only
// return responses, so this file starts the same server (Core's responder, fault handler and
// `RunningSimulator`) with one more channel handler that tags every request with its connection,
// letting the backend close that connection itself.

/// The open connections of one Tickedify simulator, by the id the tagger writes into each request.
final class TickedifyConnections: Sendable {
    private struct State {
        var next: UInt64 = 1
        var channels: [UInt64: any Channel] = [:]
    }

    private let state = Mutex(State())

    /// The request header carrying the connection id (overwrites anything a client sent).
    static let header = HTTPField.Name("x-tickedify-sim-connection")!

    func register(_ channel: any Channel) -> UInt64 {
        state.withLock { s in
            let id = s.next
            s.next += 1
            s.channels[id] = channel
            return id
        }
    }

    func remove(_ id: UInt64) {
        _ = state.withLock { $0.channels.removeValue(forKey: id) }
    }

    /// The connection a request arrived on.
    func channel(for request: SimRequest) -> (any Channel)? {
        guard let raw = request.headers[Self.header], let id = UInt64(raw) else { return nil }
        return state.withLock { $0.channels[id] }
    }

    /// The socket peer IP of the request's connection (Express's `req.ip` without `trust proxy`).
    func clientIP(for request: SimRequest) -> String {
        channel(for: request)?.remoteAddress?.ipAddress ?? "127.0.0.1"
    }

    var count: Int { state.withLock { $0.channels.count } }
}

/// Writes the connection id into every request head; see ``TickedifyConnections``.
final class TickedifyConnectionTagger: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let connections: TickedifyConnections
    private var id: UInt64?

    init(connections: TickedifyConnections) {
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        id = connections.register(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        forget()
    }

    func channelInactive(context: ChannelHandlerContext) {
        forget()
        context.fireChannelInactive()
    }

    private func forget() {
        if let id { connections.remove(id) }
        id = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var head) = unwrapInboundIn(data) {
            if let id {
                head.headerFields[TickedifyConnections.header] = String(id)
            } else {
                head.headerFields[TickedifyConnections.header] = nil
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }
}

enum TickedifyServer {
    /// `SimulatorServer.start` with the connection tagger added after Core's fault handler.
    static func start(
        backend: TickedifyBackend,
        connections: TickedifyConnections,
        control: SimulatorControl,
        host: String,
        port: Int,
        logger: Logger?
    ) async throws -> RunningSimulator {
        let kind = SimulatorKind.tickedify
        let bindHost = try SimulatorServer.bindHost(for: host)
        guard (0...65535).contains(port) else { throw SimulatorError.startFailed("port \(port) out of range") }

        var log = logger ?? Logger(label: "daygate.simulator.\(kind.rawValue)")
        if logger == nil { log.logLevel = .warning }
        log[metadataKey: "simulator"] = .string(kind.rawValue)

        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let failure = Mutex<String?>(nil)

        let responder = SimulatorResponder(kind: kind, control: control, backend: backend)
        let app = Application(
            responder: responder,
            server: .http1(
                configuration: .init(additionalChannelHandlers: [
                    FaultChannelHandler(control: control), TickedifyConnectionTagger(connections: connections),
                ])
            ),
            configuration: .init(address: .hostname(bindHost, port: port), serverName: nil),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    portContinuation.yield(port)
                }
                portContinuation.finish()
            },
            logger: log
        )

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
        return RunningSimulator(kind: kind, host: bindHost, port: boundPort, control: control, group: group, task: task)
    }
}
