import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Writes an answer's head and body to its connection from the request's task: the head goes
/// with the body's first part, a body whose length is known goes out whole with its end in one
/// flush, and a streamed body (`/v1/stream`) is flushed part by part. Each flush waits until
/// SwiftNIO has written it, so a client that reads slowly holds one part of its answer in the
/// gateway, not the whole stream.
struct ChannelResponseWriter: ResponseBodyWriter {
    let channel: any Channel
    private var pending: [HTTPResponsePart]
    private let contentLength: Int?
    private var written = 0

    init(channel: any Channel, head: HTTPResponse, contentLength: Int?) {
        self.channel = channel
        self.pending = [.head(head)]
        self.contentLength = contentLength
    }

    /// Writes a whole answer: its head, then its body as the body writes itself.
    static func write(_ response: consuming Response, to channel: any Channel) async throws {
        let writer = ChannelResponseWriter(
            channel: channel, head: response.head, contentLength: response.body.contentLength)
        try await response.body.write(writer)
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        pending.append(.body(buffer))
        written += buffer.readableBytes
        // The whole of a body of known length goes with its end.
        if let contentLength, written >= contentLength { return }
        try await flush()
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        pending.append(.end(trailingHeaders))
        try await flush()
    }

    private mutating func flush() async throws {
        let parts = pending
        pending = []
        let channel = channel
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            for part in parts.dropLast() { channel.write(part, promise: nil) }
            channel.writeAndFlush(parts[parts.count - 1], promise: promise)
        }
        try await promise.futureResult.get()
    }
}
