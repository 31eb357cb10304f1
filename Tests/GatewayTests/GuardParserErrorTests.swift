import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import Gateway

/// What `ConnectionGuardHandler` does with SwiftNIO's parser errors, over an embedded channel
/// with the decoder in front of it: a body cut short (the client closed before its end) or a
/// bad chunk reaches the handler reading the body as an error — never as a body that ended.
@Suite struct GuardParserErrorTests {
    /// Records the parts and the errors that pass the guard.
    final class Behind: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        var parts: [String] = []
        var errors: [any Error] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: parts.append("head")
            case .body(let buffer): parts.append("body \(buffer.readableBytes)")
            case .end: parts.append("end")
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            errors.append(error)
        }
    }

    static func channel() throws -> (EmbeddedChannel, Behind) {
        let budget = ConnectionBudget.forTests()
        let channel = EmbeddedChannel()
        let behind = Behind()
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
        try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(budget: budget))
        try channel.pipeline.syncOperations.addHandler(behind)
        return (channel, behind)
    }

    @Test func aBodyCutShortByTheClientReachesTheHandlerAsAnError() throws {
        let (channel, behind) = try Self.channel()
        try channel.writeInbound(
            ByteBuffer(string: "POST /v1/tasks HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n")
        )
        try channel.writeInbound(ByteBuffer(string: String(repeating: "x", count: 50)))
        channel.pipeline.fireChannelInactive()
        #expect(behind.parts == ["head", "body 50"])
        #expect(behind.errors.contains { $0 is HTTPParserError }, "\(behind.errors)")
        _ = try? channel.finish()
    }

    @Test func aBadChunkReachesTheHandlerAsAnErrorAndCloses() throws {
        let (channel, behind) = try Self.channel()
        try channel.writeInbound(
            ByteBuffer(
                string: "POST /v1/tasks HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\nzz\r\n"))
        #expect(behind.parts == ["head", "body 5"])
        #expect(behind.errors.contains { $0 is HTTPParserError }, "\(behind.errors)")
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }
}
