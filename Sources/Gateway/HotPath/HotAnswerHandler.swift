import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sits in each connection's pipeline between the HTTP codec and Hummingbird, and answers
/// what `HotAnswers` can answer right there on the event loop: no task, no hop to another
/// thread, no middleware chain (see BENCHMARKS.md for what that buys).
///
/// Order on a connection is kept: a request is answered here only when every request passed
/// on to the router before it has had its whole answer written; otherwise it is passed on too.
final class HotAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let answers: HotAnswers
    /// Requests passed on whose answer has not been written to the end yet.
    private var passedOn = 0
    /// The answer to write once the request it answers has been read to its end.
    private var pending: (head: HTTPResponse, body: ByteBuffer?)?

    init(answers: HotAnswers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, let answer = answers.answer(request) {
                pending = answer
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if pending != nil { return }
            context.fireChannelRead(data)
        case .end:
            guard let answer = pending else {
                context.fireChannelRead(data)
                return
            }
            pending = nil
            context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
            if let body = answer.body {
                context.write(wrapOutboundOut(.body(body)), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            passedOn = max(0, passedOn - 1)
        }
        context.write(data, promise: promise)
    }
}
