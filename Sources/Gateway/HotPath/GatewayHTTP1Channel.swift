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
/// `answers` is nil).
struct GatewayHTTP1Channel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let budget: ConnectionBudget
    let answers: HotAnswersSource?
    var configuration = HTTP1Channel.Configuration()

    /// - Parameter responder: Hummingbird's, run for each request in a child task of the
    ///   connection's task (`handle`).
    init(responder: @escaping HTTPChannelHandler.Responder, budget: ConnectionBudget, answers: HotAnswersSource?) {
        self.responder = responder
        self.budget = budget
        self.answers = answers
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
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    static let readBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536)

}
