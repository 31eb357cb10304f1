import Foundation
import Model
import NIOCore
import NIOHTTP1

/// First in each connection's pipeline after SwiftNIO's HTTP/1 codec: it closes connections
/// whose client is too slow (`ConnectionTimeouts`: a head that does not arrive, a body that
/// trickles, a keep-alive left idle), sheds idle ones when the connection budget is full
/// (`ConnectionPressure`), refuses an HTTP/1.1 request without exactly one `Host` header
/// (400, as RFC 9112 requires) before anything else sees it, answers a request SwiftNIO's
/// decoder cannot parse with a JSON 400 (431 for a head over its limits) and closes, and leaves
/// the body out of every answer to a `HEAD` (`ResponseFraming`).
///
/// It learns of answers from the `.end` the router writes and from `HotAnswerHandler.AnswerWritten`
/// for answers the hot path writes past it. One timer per connection, moved only when a
/// deadline comes closer: a keep-alive request whose head arrives in one read costs no timer
/// work.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let budget: ConnectionBudget
    private var timeouts: ConnectionTimeouts
    private var framing = ResponseFraming()
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?
    /// When the last read ended: the time of what happens in the same event-loop tick.
    private var readAt = NIODeadline.now()
    /// A request being refused: its parts are dropped until its end, then the answer is written.
    private var refusing: (status: HTTPResponseStatus, code: String, message: String)?
    /// A request the decoder could not parse, answered once the answers owed before it are
    /// written (pipelined requests); the connection reads nothing more.
    private var malformed: (status: HTTPResponseStatus, code: String, message: String)?

    init(budget: ConnectionBudget) {
        self.budget = budget
        self.timeouts = ConnectionTimeouts(settings: budget.timeouts, now: .now())
        timeouts.pressureChanged(budget.underPressure)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        armTimer(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            timeouts.headRead()
            framing.requestRead(isHead: head.method == .HEAD)
            if head.version.major == 1, head.version.minor >= 1, !Self.hasOneHost(head.headers) {
                refusing = (.badRequest, "missing_host", "an HTTP/1.1 request needs exactly one Host header")
                return
            }
            context.fireChannelRead(data)
        case .body:
            if refusing == nil { context.fireChannelRead(data) }
        case .end:
            timeouts.requestEnded()
            if let refusal = refusing {
                refusing = nil
                framing.answeredElsewhere()
                timeouts.answerWritten(now: .now())
                answerAndClose(context: context, status: refusal.status, code: refusal.code, message: refusal.message)
                return
            }
            context.fireChannelRead(data)
        }
    }

    /// A request SwiftNIO's decoder could not parse (`HTTPParserError`): a head over the
    /// decoder's limits is a JSON 431 (`headers_too_large`), anything else (a bad header line, a
    /// bad chunk) a JSON 400 (`malformed_request`), with `Connection: close`, written after the
    /// answers owed to the requests before it; then the connection is closed. When the request's
    /// head has already gone on (a bad chunk, or the connection closed before the body's end),
    /// its handler may be reading the body and its answer may have begun: the error goes on to
    /// the handler (its body ends in the error, not as if it were whole) and the connection is
    /// closed without an answer. Later errors of the same decoder (it refuses what comes after)
    /// are not passed on: the connection is ending.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if malformed != nil { return }
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        malformed =
            parserError == .headerOverflow
            ? (.requestHeaderFieldsTooLarge, "headers_too_large", "the request's head is larger than the gateway reads")
            : (.badRequest, "malformed_request", "the request could not be read as HTTP/1.1")
        if case .body = timeouts.reading {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        answerMalformedWhenDue(context: context)
    }

    private func answerMalformedWhenDue(context: ChannelHandlerContext) {
        guard let refusal = malformed, timeouts.pending == 0, !framing.answering else { return }
        answerAndClose(context: context, status: refusal.status, code: refusal.code, message: refusal.message)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        timeouts.writabilityChanged(context.channel.isWritable, now: .now())
        armTimer(context: context)
        context.fireChannelWritabilityChanged()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readAt = .now()
        timeouts.bytesRead(now: readAt)
        armTimer(context: context)
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            framing.answerBegins()
        case .body:
            if framing.droppingBody {
                promise?.succeed()
                return
            }
        case .end:
            framing.answerEnds()
            timeouts.answerWritten(now: .now())
            context.write(data, promise: promise)
            answerMalformedWhenDue(context: context)
            return
        }
        context.write(data, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        // A type comparison, not a cast: this runs for every answer of the hot path.
        guard type(of: event) == HotAnswerHandler.AnswerWritten.self else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        // Written in the tick of the read that brought the request.
        framing.answeredElsewhere()
        timeouts.answerWritten(now: readAt)
        promise?.succeed()
        answerMalformedWhenDue(context: context)
    }

    /// Exactly one `Host` header (RFC 9112 §3.2).
    private static func hasOneHost(_ headers: HTTPHeaders) -> Bool {
        var count = 0
        for (name, _) in headers where name.isHeaderName("host") { count += 1 }
        return count == 1
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let pressure = event as? ConnectionPressure else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        timeouts.pressureChanged(pressure.on)
        armTimer(context: context)
    }

    /// Makes sure the timer goes off no later than the current deadline.
    private func armTimer(context: ChannelHandlerContext) {
        let due = timeouts.deadline?.at ?? (.now() + timeouts.settings.idle)
        if let timerAt, timerAt <= due, timer != nil { return }
        schedule(at: due, context: context)
    }

    private func schedule(at due: NIODeadline, context: ChannelHandlerContext) {
        timer?.cancel()
        timerAt = due
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = loopBound.value
            handler.timerFired(context: context)
        }
    }

    private func timerFired(context: ChannelHandlerContext) {
        timer = nil
        timerAt = nil
        switch timeouts.timerFired(now: .now()) {
        case .wakeAt(let due):
            schedule(at: due, context: context)
        case .close(let reason):
            budget.countClosed(reason)
            if case .head = timeouts.reading, timeouts.pending == 0 {
                // Nothing of this request reached the router: the client may still read why.
                answerAndClose(
                    context: context, status: .requestTimeout, code: "request_timeout",
                    message: "the request's head did not arrive in time"
                )
            } else {
                context.close(promise: nil)
            }
        }
    }

    /// Writes a small JSON error with `Connection: close`, then closes the connection.
    private func answerAndClose(
        context: ChannelHandlerContext, status: HTTPResponseStatus, code: String, message: String
    ) {
        let body = ByteBuffer(data: GatewayError.body(ErrorDetail(code: code, message: message)))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
