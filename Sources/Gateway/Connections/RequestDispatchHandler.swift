import HTTPTypes
import HummingbirdCore
import Model
import NIOCore
import NIOHTTPTypes

/// The last handler of a connection's pipeline: starts a task for each request, gives it the
/// request's body as it is read, and starts the next request when the task ends
/// (`RequestDispatch` decides). Between requests the connection has no task at all — an idle
/// keep-alive connection costs its channel and handlers, not a task's stack (`make bench`
/// row 5). A cancelled server (`ConnectionBudget.closeAll`) cancels the request's task.
final class RequestDispatchHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Answers one request (in the request's own task): whether the connection goes on.
    typealias Answer = @Sendable (HTTPRequest, RequestBody, any Channel) async -> Bool

    typealias BodyProducer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, BodyDemand
    >

    /// The connection ended while a request's body was still being read.
    struct ConnectionEnded: Error {}

    private let answer: Answer
    private var dispatch = RequestDispatch()
    private var context: ChannelHandlerContext?
    private var task: Task<Void, Never>?
    private var body: BodyProducer.Source?
    /// Counts the requests started, so that what a finished request's task or body reports
    /// late is not taken for the next one's.
    private var generation = 0
    /// A read the pipeline asked for while `dispatch` said not to read.
    private var readWithheld = false

    /// Whether the connection waits for a request with no task (for tests).
    var isParked: Bool { dispatch.state == .parked && task == nil }

    init(answer: @escaping Answer) {
        self.answer = answer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// The connection ended. Its request's task runs on to its end, as it did when it was a
    /// child of the connection's task: a client that leaves must not cut a write to a backend
    /// halfway (the answer's writing fails, and a stream ends at its next write). Its body, if
    /// still being read, ends in an error.
    func handlerRemoved(context: ChannelHandlerContext) {
        dispatch.ended()
        task = nil
        body?.finish(ConnectionEnded())
        body = nil
        self.context = nil
    }

    /// The server was cancelled (`ConnectionBudget.closeAll`): the request's task is cancelled
    /// too, as a child of the server's would have been.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ServerCancelled {
            task?.cancel()
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            perform(dispatch.inputClosed())
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(dispatch.read(unwrapInboundIn(data)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        body?.finish(error)
        body = nil
        perform(dispatch.failed())
    }

    func read(context: ChannelHandlerContext) {
        if dispatch.reads {
            context.read()
        } else {
            readWithheld = true
        }
    }

    private func perform(_ actions: [RequestDispatch.Action]) {
        guard let context else { return }
        for action in actions {
            switch action {
            case .start(let head):
                start(head, context: context)
            case .yield(let buffer):
                if let body {
                    switch body.yield(buffer) {
                    case .produceMore, .dropped: dispatch.bodyDemand(true)
                    case .stopProducing: dispatch.bodyDemand(false)
                    }
                }
            case .finishBody:
                body?.finish()
                body = nil
            case .close:
                body?.finish(ConnectionEnded())
                body = nil
                context.close(promise: nil)
            }
        }
        readIfWithheld()
    }

    private func readIfWithheld() {
        if readWithheld, dispatch.reads, let context {
            readWithheld = false
            context.read()
        }
    }

    private func start(_ head: HTTPRequest, context: ChannelHandlerContext) {
        generation += 1
        let generation = generation
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let producer = BodyProducer.makeSequence(
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 4), finishOnDeinit: false,
            delegate: BodyDemand(handler: handler, generation: generation))
        body = producer.source
        let requestBody = RequestBody(asyncSequence: producer.sequence)
        let channel = context.channel
        let answer = answer
        // On the shared event loops as generic code (`EventLoopTaskExecutor`), and so every task
        // started for it (`TaskPlacement`): no hop at each nonisolated call.
        let preferred = EventLoopTaskExecutor.of(channel.eventLoop)
        task = Task(executorPreference: preferred) {
            let goesOn = await TaskPlacement.$preferred.withValue(preferred) {
                await answer(head, requestBody, channel)
            }
            channel.eventLoop.execute { handler.value.answered(goesOn: goesOn, generation: generation) }
        }
    }

    private func answered(goesOn: Bool, generation: Int) {
        guard generation == self.generation, context != nil else { return }
        task = nil
        perform(dispatch.answered(goesOn: goesOn))
    }

    fileprivate func bodyWantsMore(generation: Int) {
        guard generation == self.generation else { return }
        dispatch.bodyDemand(true)
        readIfWithheld()
    }

    /// Tells the connection that a request's reader has taken its body's parts (or stopped
    /// reading it), so that reading goes on.
    struct BodyDemand: NIOAsyncSequenceProducerDelegate {
        let handler: NIOLoopBound<RequestDispatchHandler>
        let generation: Int

        func produceMore() {
            let handler = handler
            let generation = generation
            handler.eventLoop.execute { handler.value.bodyWantsMore(generation: generation) }
        }

        func didTerminate() {
            produceMore()
        }
    }
}
