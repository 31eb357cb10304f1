import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The open connections of one simulator, so that stopping it can close them itself. A
/// simulator's server does not always end on its own: a connection opened but not yet used
/// (an HTTP client's pool opens one more than it needs while a burst is on) sits, on a
/// WebSocket-capable server, in Hummingbird's wait for its first request's upgrade decision,
/// which neither a graceful shutdown nor cancellation ends. `RunningSimulator.stop` closes
/// such unused connections after a short grace, and every other one after the grace period,
/// instead of waiting for them.
final class SimulatorConnections: Sendable {
    private struct Open {
        var channel: any Channel
        var used = false
    }

    private let open = Mutex<[ObjectIdentifier: Open]>([:])

    var count: Int { open.withLock { $0.count } }

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        open.withLock { $0[id] = Open(channel: channel) }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.open.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// The client sent its first bytes on `channel`.
    func used(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)]?.used = true }
    }

    /// Closes the connections on which nothing was ever sent (with `all`: every one).
    func close(all: Bool) {
        let doomed = open.withLock { open in open.values.filter { all || !$0.used }.map(\.channel) }
        for channel in doomed {
            channel.close(promise: nil)
        }
    }
}

/// Marks a connection used at its first bytes, then takes itself out.
final class ConnectionUseMarker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    let connections: SimulatorConnections

    init(connections: SimulatorConnections) {
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connections.used(context.channel)
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// A server child channel that registers each connection with `connections` before `base`
/// sets it up.
struct TrackedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: SimulatorConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        connections.add(channel)
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionUseMarker(connections: connections), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
