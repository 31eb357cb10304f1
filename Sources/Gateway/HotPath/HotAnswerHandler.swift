import NIOCore
import NIOHTTP1

/// Sits in each connection's pipeline right after SwiftNIO's HTTP/1 decoder, before the
/// conversion to HTTP types and Hummingbird (`GatewayHTTP1Channel`), and answers what
/// `HotAnswers` can answer right there on the event loop: no task, no hop to another thread,
/// no middleware chain, no response encoding (the answer's bytes are written past the
/// response encoder, straight to the socket).
///
/// Order on a connection is kept: a request is answered here only when every request passed
/// on to the router before it has had its whole answer written; otherwise it is passed on too.
final class HotAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let source: HotAnswersSource
    /// The source's answers at `version` (a reload replaces them).
    private var answers: HotAnswers
    private var version: UInt64
    /// Requests passed on whose answer has not been written to the end yet.
    private var passedOn = 0
    /// The answer to write once the request it answers has been read to its end.
    private var pending: (head: ByteBuffer, body: ByteBuffer?)?
    /// The response encoder's context: bytes written there go on to the socket unencoded.
    private var wire: ChannelHandlerContext?
    /// What this connection asked last (`HotAnswers.Recent`).
    private var recent: HotAnswers.Recent?
    /// Whether anything was passed on since the last read ended: if not, the handlers after
    /// this one (the conversion to HTTP types, the request dispatcher) have nothing to do when
    /// this one ends.
    private var passedOnInRead = false

    /// Told to the handlers before this one (`ConnectionGuardHandler`) after each answer written
    /// here, since those bytes go past them.
    struct AnswerWritten {}

    init(answers source: HotAnswersSource) {
        self.source = source
        let latest = source.latest()
        answers = latest.answers
        version = latest.version
    }

    func handlerAdded(context: ChannelHandlerContext) {
        wire = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        wire = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if source.version != version {
                let latest = source.latest()
                answers = latest.answers
                version = latest.version
                recent = nil
            }
            if passedOn == 0, wire != nil,
                let answer = answers.answer(request, allocator: context.channel.allocator, recent: &recent)
            {
                pending = answer
                return
            }
            passedOn += 1
            passedOnInRead = true
            context.fireChannelRead(data)
        case .body:
            if pending != nil { return }
            passedOnInRead = true
            context.fireChannelRead(data)
        case .end:
            guard let answer = pending, let wire else {
                passedOnInRead = true
                context.fireChannelRead(data)
                return
            }
            pending = nil
            if let body = answer.body {
                wire.write(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
                wire.writeAndFlush(NIOAny(IOData.byteBuffer(body)), promise: nil)
            } else {
                wire.writeAndFlush(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
            }
            context.triggerUserOutboundEvent(AnswerWritten(), promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard passedOnInRead else { return }
        passedOnInRead = false
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            passedOn = max(0, passedOn - 1)
        }
        context.write(data, promise: promise)
    }
}
