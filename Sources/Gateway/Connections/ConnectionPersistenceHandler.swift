import NIOCore
import NIOHTTP1

/// Keeps a connection open between requests only as HTTP says (`ConnectionPersistence`): after
/// the answer to an HTTP/1.0 request without `Connection: keep-alive`, or to any request with
/// `Connection: close`, the connection is closed once the answer is written — before, such a
/// client waited out the idle timeout (60 s) for an end that never came. Sits after
/// `ConnectionGuardHandler` and before `HotAnswerHandler` in `GatewayHTTP1Channel`, so it sees
/// every request the router or the hot path answers and every answer they write.
final class ConnectionPersistenceHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var persistence = ConnectionPersistence()
    /// Parts of requests after the one that closes are dropped.
    private var dropping = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            dropping = !persistence.requestRead(head)
        }
        guard !dropping else { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            context.write(wrapOutboundOut(.head(persistence.answerBegins(head))), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard persistence.answerEnds() else {
                context.write(data, promise: promise)
                return
            }
            let written = context.writeAndFlush(data)
            written.cascade(to: promise)
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if type(of: event) == HotAnswerHandler.AnswerWritten.self, persistence.answeredElsewhere() {
            // Not reached while the hot path leaves such requests to the router; closing after
            // a flush keeps the answer whole if it ever does.
            context.flush()
            context.triggerUserOutboundEvent(event, promise: promise)
            context.close(promise: nil)
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }
}
