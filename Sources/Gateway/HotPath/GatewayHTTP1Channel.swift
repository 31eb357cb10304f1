import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel (`HTTP1Channel`) with the gateway's own handlers between
/// SwiftNIO's HTTP/1 codec and the conversion to HTTP types, where they see parsed request
/// heads and can write finished bytes: `ConnectionGuardHandler` (slow clients, the connection
/// budget's pressure, `Host`), `ConnectionPersistenceHandler` (closing after the answer to an
/// HTTP/1.0 request or `Connection: close`), then `HotAnswerHandler` (kept answers, unless
/// `answers` is nil); after Hummingbird's connection state handler (idle limit, graceful
/// shutdown), `RequestDispatchHandler` starts a task for each request the hot path leaves.
struct GatewayHTTP1Channel: ServerChildChannel {
    /// What the server is given for a connection once its pipeline is set up.
    struct Value: ServerChildChannelValue {
        let channel: any Channel
    }

    /// Hummingbird's responder with a request's context: the router's answer to a request.
    typealias Respond = @Sendable (Request, any Channel) async throws -> Response

    let respond: Respond
    let budget: ConnectionBudget
    let answers: HotAnswersSource?
    let serverName: String
    var configuration = HTTP1Channel.Configuration()

    /// - Parameter respond: the router's answer to a request, run for each request in a task of
    ///   its own (`RequestDispatchHandler`, `answer`).
    init(
        respond: @escaping Respond, budget: ConnectionBudget, answers: HotAnswersSource?,
        serverName: String = GatewayApplication.serverName
    ) {
        self.respond = respond
        self.budget = budget
        self.answers = answers
        self.serverName = serverName
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = configuration.httpDecoder.maxHeaderFieldSize
            limits.maxHeaderListSize = configuration.httpDecoder.maxHeaderListSize
            limits.maxHeaderFieldCount = configuration.httpDecoder.maxHeaderFieldCount
            // The buffer a connection reads into is kept for its next read, idle or not: 1 KB
            // holds a request head of the gateway's clients in one read (SwiftNIO's default
            // starts at 2 KB; a larger head makes it grow, read by read, up to 64 KB).
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.readBuffers)
            let pipeline = channel.pipeline.syncOperations
            // SwiftNIO's `configureHTTPServerPipeline` pairs the decoder with the encoder: each
            // request's method is queued in the encoder and taken off by the response head it
            // writes. Answers the hot path writes past the encoder never take theirs off, so the
            // queue grew with every kept answer on a keep-alive connection, and a router answer
            // after a hot `HEAD` was framed as a `HEAD` answer (no body). Unpaired, the encoder
            // frames by status alone; Hummingbird leaves the body out of `HEAD` answers itself.
            try pipeline.addHandler(HTTPResponseEncoder(configuration: .init()))
            let decoder = HTTPRequestDecoder(
                leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop, limitConfiguration: limits
            )
            try pipeline.addHandler(ByteToMessageHandler(decoder))
            budget.register(channel)
            try pipeline.addHandler(ConnectionGuardHandler(budget: budget))
            try pipeline.addHandler(ConnectionPersistenceHandler())
            if let answers {
                try pipeline.addHandler(HotAnswerHandler(answers: answers))
            }
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(
                HTTPConnectionStateHandler(idleTimeout: configuration.idleTimeout.map { .init($0) }, logger: logger))
            let respond = respond
            let serverName = serverName
            try pipeline.addHandler(
                RequestDispatchHandler { head, body, channel in
                    await Self.answer(head, body: body, channel: channel, respond: respond, serverName: serverName)
                })
            return Value(channel: channel)
        }
    }

    static let readBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536)

}
