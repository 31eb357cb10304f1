import CoreMetrics
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Synchronization
import Testing

@testable import Gateway

/// The connection's loop (`GatewayHTTP1Channel.handle`), driven part by part over a testing
/// channel: each request is answered in a child task of its own, not the connection's, the loop
/// waits for the next head in the connection's task, bodies reach the handler and what it
/// leaves is skipped, and `Connection: close` ends the connection.
@Suite struct ConnectionLoopTests {
    /// Records, per request: the task that answered it, the body it read (and a connection's own
    /// task, `connect`).
    final class Seen: Sendable {
        let tasks = Mutex<[Int]>([])
        let bodies = Mutex<[String]>([])
        let bodyErrors = Mutex<[String]>([])
    }

    static func loop(reading bodyOf: @escaping @Sendable (String) -> Bool = { _ in true }, seen: Seen)
        -> GatewayHTTP1Channel
    {
        let budget = ConnectionBudget(
            limit: 16, timeouts: .init(head: .seconds(10), body: .seconds(10), idle: .seconds(60)),
            metrics: NOOPMetricsHandler.instance, logger: Logger(label: "test"))
        return GatewayHTTP1Channel(
            responder: { request, writer, _ in
                seen.tasks.withLock { $0.append(withUnsafeCurrentTask { $0?.hashValue } ?? 0) }
                if bodyOf(request.head.path ?? "") {
                    do {
                        let body = try await request.body.collect(upTo: 1 << 16)
                        seen.bodies.withLock { $0.append(String(buffer: body)) }
                    } catch {
                        seen.bodyErrors.withLock { $0.append("\(error)") }
                        throw error
                    }
                }
                try await writer.writeResponse(HTTPResponse(status: .noContent))
            }, budget: budget, answers: nil)
    }

    static func head(_ path: String, close: Bool = false) -> HTTPRequestPart {
        var fields = HTTPFields()
        if close { fields[.connection] = "close" }
        return .head(HTTPRequest(method: .post, scheme: nil, authority: "localhost", path: path, headerFields: fields))
    }

    /// Waits for `count` answers (`.end`s) on `channel`.
    static func answers(_ count: Int, on channel: NIOAsyncTestingChannel) async throws -> Int {
        var ends = 0
        while ends < count {
            if case .end = try await channel.waitForOutboundWrite(as: HTTPResponsePart.self) { ends += 1 }
        }
        return ends
    }

    /// A testing channel wrapped as the server wraps a connection, `loop` running on it in a task,
    /// and that task's identity once it runs.
    static func connect(_ loop: GatewayHTTP1Channel) async throws -> (
        NIOAsyncTestingChannel, Task<Void, Never>, Seen
    ) {
        let channel = NIOAsyncTestingChannel()
        let value = try await channel.eventLoop.submit {
            try GatewayHTTP1Channel.Value(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }.get()
        let identity = Seen()
        let task = Task {
            identity.tasks.withLock { $0 = [withUnsafeCurrentTask { $0?.hashValue } ?? 0] }
            await loop.handle(value: value, logger: Logger(label: "test"))
        }
        return (channel, task, identity)
    }

    @Test func eachRequestIsAnsweredInAChildTaskNotTheConnections() async throws {
        let seen = Seen()
        let (channel, connection, connectionTask) = try await Self.connect(Self.loop(seen: seen))
        for path in ["/a", "/b"] {
            try await channel.writeInbound(Self.head(path))
            try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "body of \(path)")))
            try await channel.writeInbound(HTTPRequestPart.end(nil))
            _ = try await Self.answers(1, on: channel)
        }
        try await channel.close()
        await connection.value
        let tasks = seen.tasks.withLock { $0 }
        #expect(tasks.count == 2)
        // (Two children one after the other may share an address; the connection's task lives on.)
        let connectionTasks = connectionTask.tasks.withLock { $0 }
        #expect(connectionTasks.count == 1)
        #expect(!tasks.contains { connectionTasks.contains($0) }, "a request was answered in the connection's task")
        #expect(seen.bodies.withLock { $0 } == ["body of /a", "body of /b"])
    }

    @Test func aBodyTheHandlerLeavesIsSkippedAndTheNextRequestAnswered() async throws {
        let seen = Seen()
        let (channel, connection, _) = try await Self.connect(Self.loop(reading: { $0 != "/unread" }, seen: seen))
        // Pipelined: the first body is not read by its handler; the second request follows.
        try await channel.writeInbound(Self.head("/unread"))
        try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "left")))
        try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "behind")))
        try await channel.writeInbound(HTTPRequestPart.end(nil))
        try await channel.writeInbound(Self.head("/read"))
        try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "second")))
        try await channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try await Self.answers(2, on: channel) == 2)
        try await channel.close()
        await connection.value
        #expect(seen.bodies.withLock { $0 } == ["second"])
    }

    @Test func connectionCloseEndsTheLoopAfterItsAnswer() async throws {
        let seen = Seen()
        let (channel, connection, _) = try await Self.connect(Self.loop(seen: seen))
        try await channel.writeInbound(Self.head("/last", close: true))
        try await channel.writeInbound(HTTPRequestPart.end(nil))
        _ = try await Self.answers(1, on: channel)
        // The loop finished its sending side (the testing channel closes with it) and waits for
        // the connection to close; a request sent after it is not answered.
        _ = try? await channel.writeInbound(Self.head("/after"))
        _ = try? await channel.writeInbound(HTTPRequestPart.end(nil))
        try? await channel.close()
        await connection.value
        #expect(seen.tasks.withLock { $0.count } == 1)
    }

    /// The server's group cancelled (no graceful shutdown): a connection waiting for a head ends
    /// and its channel is closed, whatever the client does.
    @Test func aCancelledConnectionWaitingForARequestEndsAndCloses() async throws {
        let seen = Seen()
        let (channel, connection, _) = try await Self.connect(Self.loop(seen: seen))
        try await channel.writeInbound(Self.head("/a"))
        try await channel.writeInbound(HTTPRequestPart.end(nil))
        _ = try await Self.answers(1, on: channel)
        connection.cancel()
        await connection.value
        try await channel.closeFuture.get()
        #expect(seen.tasks.withLock { $0.count } == 1)
    }

    /// The parser failing inside a body (`ConnectionGuardHandler` passes its error on): the
    /// handler's body read ends in that error, not as a body that ended, and the connection ends.
    @Test func aBodyTheParserFailsInIsAnErrorToItsHandler() async throws {
        let seen = Seen()
        let (channel, connection, _) = try await Self.connect(Self.loop(seen: seen))
        try await channel.writeInbound(Self.head("/cut"))
        try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "half a bo")))
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidChunkSize)
        await connection.value
        #expect(seen.bodies.withLock { $0 }.isEmpty, "a cut body was read as whole")
        #expect(seen.bodyErrors.withLock { $0.count } == 1)
        try await channel.closeFuture.get()
    }

    @Test func aBodyPartWhereAHeadBelongsEndsTheConnection() async throws {
        let seen = Seen()
        let (channel, connection, _) = try await Self.connect(Self.loop(seen: seen))
        try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "stray")))
        // The loop closes the channel itself (no answer, no request reaches the responder).
        try await channel.closeFuture.get()
        await connection.value
        #expect(seen.tasks.withLock { $0.isEmpty })
    }
}
