import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Synchronization
import Testing

@testable import Gateway

/// A connection's requests (`RequestDispatchHandler`, `GatewayHTTP1Channel.answer`), driven part
/// by part over a testing channel: each request is answered in a task of its own and the
/// connection holds none between requests, bodies reach the handler and what it leaves is
/// skipped, pipelined requests are answered in order, `Connection: close` ends the connection,
/// a client that leaves does not cut its request short, and a cancelled server cancels it.
@Suite struct RequestDispatchHandlerTests {
    /// Records, per request: the task that answered it, the body it read.
    final class Seen: Sendable {
        let tasks = Mutex<[Int]>([])
        let paths = Mutex<[String]>([])
        let bodies = Mutex<[String]>([])
        let bodyErrors = Mutex<[String]>([])
        let cancelled = Mutex(0)
        /// Resumes the handler of `/hold`; how many such handlers finished.
        let release = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let finished = Mutex(0)
    }

    /// A connection with the dispatcher as its last handler; the handler answers 204 after
    /// reading the body (unless `reading` says not to), or waits an hour on `/wait`.
    static func connect(reading bodyOf: @escaping @Sendable (String) -> Bool = { _ in true }, seen: Seen)
        async throws -> (NIOAsyncTestingChannel, NIOLoopBound<RequestDispatchHandler>)
    {
        let respond: GatewayHTTP1Channel.Respond = { request, _ in
            seen.tasks.withLock { $0.append(withUnsafeCurrentTask { $0?.hashValue } ?? 0) }
            let path = request.head.path ?? ""
            seen.paths.withLock { $0.append(path) }
            if path == "/wait" {
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    seen.cancelled.withLock { $0 += 1 }
                    throw error
                }
            }
            if path == "/hold" || path == "/slow" {
                await withCheckedContinuation { continuation in seen.release.withLock { $0 = continuation } }
                seen.finished.withLock { $0 += 1 }
            }
            if bodyOf(path) {
                do {
                    let body = try await request.body.collect(upTo: 1 << 16)
                    seen.bodies.withLock { $0.append(String(buffer: body)) }
                } catch {
                    seen.bodyErrors.withLock { $0.append("\(error)") }
                    throw error
                }
            }
            return Response(status: .noContent)
        }
        let channel = NIOAsyncTestingChannel()
        let handler = try await channel.eventLoop.submit {
            let handler = RequestDispatchHandler { head, body, channel in
                await GatewayHTTP1Channel.answer(
                    head, body: body, channel: channel, respond: respond, serverName: "test")
            }
            try channel.pipeline.syncOperations.addHandler(handler)
            return NIOLoopBound(handler, eventLoop: channel.eventLoop)
        }.get()
        try await channel.connect(to: .init(ipAddress: "127.0.0.1", port: 8080))
        return (channel, handler)
    }

    static func head(_ path: String, close: Bool = false) -> HTTPRequestPart {
        var fields = HTTPFields()
        if close { fields[.connection] = "close" }
        return .head(HTTPRequest(method: .post, scheme: nil, authority: "localhost", path: path, headerFields: fields))
    }

    static func send(_ path: String, body: [String] = [], close: Bool = false, on channel: NIOAsyncTestingChannel)
        async throws
    {
        try await channel.writeInbound(head(path, close: close))
        for part in body { try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: part))) }
        try await channel.writeInbound(HTTPRequestPart.end(nil))
    }

    /// Waits for `count` answers (`.end`s) on `channel`: their statuses.
    static func answers(_ count: Int, on channel: NIOAsyncTestingChannel) async throws -> [Int] {
        var statuses: [Int] = []
        var ends = 0
        while ends < count {
            switch try await channel.waitForOutboundWrite(as: HTTPResponsePart.self) {
            case .head(let head): statuses.append(head.status.code)
            case .end: ends += 1
            case .body: break
            }
        }
        return statuses
    }

    /// Whether the connection holds no request and no task (after its answer's task has told it).
    static func parked(_ handler: NIOLoopBound<RequestDispatchHandler>, on channel: NIOAsyncTestingChannel)
        async throws -> Bool
    {
        for _ in 0..<500 {
            if try await channel.eventLoop.submit({ handler.value.isParked }).get() { return true }
            try await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    /// Counts the reads that reach the front of the pipeline (the dispatcher withholds them
    /// while a body's reader is behind).
    final class ReadProbe: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = Any
        let reads = Mutex(0)
        func read(context: ChannelHandlerContext) {
            reads.withLock { $0 += 1 }
            context.read()
        }
    }

    /// A body whose reader is behind: the connection stops reading (a read asked for is
    /// withheld) and reads again once the reader has taken the parts — the wake-up a parked
    /// connection depends on; the reader gets every part.
    @Test func aReaderBehindPausesReadingAndTakingThePartsResumesIt() async throws {
        let seen = Seen()
        let (channel, _) = try await Self.connect(seen: seen)
        let probe = ReadProbe()
        try await channel.pipeline.addHandler(probe, position: .first)
        try await channel.writeInbound(Self.head("/slow"))
        // The handler of /slow waits for `release` before reading its body.
        while seen.release.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(2)) }
        let parts = (0..<12).map { "part \($0);" }
        for part in parts { try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: part))) }
        let before = probe.reads.withLock { $0 }
        try await channel.eventLoop.submit { channel.pipeline.syncOperations.read() }.get()
        #expect(probe.reads.withLock { $0 } == before, "a read went on while the body's reader was behind")
        seen.release.withLock { $0?.resume() }
        for _ in 0..<500 where probe.reads.withLock({ $0 }) == before { try await Task.sleep(for: .milliseconds(2)) }
        #expect(probe.reads.withLock { $0 } == before + 1, "the withheld read was not made once the reader caught up")
        try await channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try await Self.answers(1, on: channel) == [204])
        #expect(seen.bodies.withLock { $0 } == [parts.joined()])
        try await channel.close()
    }

    @Test func eachRequestIsAnsweredInATaskOfItsOwnAndNoTaskWaitsBetween() async throws {
        let seen = Seen()
        let (channel, handler) = try await Self.connect(seen: seen)
        #expect(try await Self.parked(handler, on: channel))
        for path in ["/a", "/b"] {
            try await Self.send(path, body: ["body of \(path)"], on: channel)
            #expect(try await Self.answers(1, on: channel) == [204])
            #expect(try await Self.parked(handler, on: channel), "a task was kept after the answer")
        }
        let tasks = seen.tasks.withLock { $0 }
        #expect(tasks.count == 2)
        #expect(seen.bodies.withLock { $0 } == ["body of /a", "body of /b"])
        try await channel.close()
    }

    @Test func aBodyTheHandlerLeavesIsSkippedAndPipelinedRequestsAreAnsweredInOrder() async throws {
        let seen = Seen()
        let (channel, handler) = try await Self.connect(reading: { $0 != "/unread" }, seen: seen)
        // Pipelined: the first body is not read by its handler; two requests follow before any answer.
        try await Self.send("/unread", body: ["left", "behind"], on: channel)
        try await Self.send("/read", body: ["second"], on: channel)
        try await Self.send("/third", body: ["third"], on: channel)
        #expect(try await Self.answers(3, on: channel) == [204, 204, 204])
        #expect(seen.paths.withLock { $0 } == ["/unread", "/read", "/third"])
        #expect(seen.bodies.withLock { $0 } == ["second", "third"])
        #expect(try await Self.parked(handler, on: channel))
        try await channel.close()
    }

    @Test func connectionCloseEndsTheConnectionAfterItsAnswer() async throws {
        let seen = Seen()
        let (channel, _) = try await Self.connect(seen: seen)
        try await Self.send("/last", close: true, on: channel)
        _ = try await Self.answers(1, on: channel)
        try await channel.closeFuture.get()
        #expect(seen.paths.withLock { $0 } == ["/last"])
    }

    /// A client that sends a request and half-closes (SwiftNIO's `inputClosed`; Hummingbird's
    /// server allows remote half-closure): it is answered, then the connection is closed.
    @Test func aClientThatFinishedSendingIsAnsweredThenClosed() async throws {
        let seen = Seen()
        let (channel, _) = try await Self.connect(seen: seen)
        try await Self.send("/last", on: channel)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try await Self.answers(1, on: channel) == [204])
        for _ in 0..<500 where channel.isActive { try await Task.sleep(for: .milliseconds(2)) }
        #expect(!channel.isActive, "a client that finished sending was kept open")
    }

    /// A client that leaves while its request is answered: the request's task runs on to its end
    /// (a write to a backend is not cut halfway), and nothing more is started.
    @Test func aClientThatLeavesDoesNotCutItsRequestShort() async throws {
        let seen = Seen()
        let (channel, handler) = try await Self.connect(seen: seen)
        try await Self.send("/hold", on: channel)
        while seen.release.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(2)) }
        try await channel.close()
        seen.release.withLock { $0?.resume() }
        for _ in 0..<500 where seen.finished.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(seen.finished.withLock { $0 } == 1, "the request's task was cut short")
        #expect(seen.cancelled.withLock { $0 } == 0)
        #expect(try await channel.eventLoop.submit({ handler.value.isParked }).get() == false)
    }

    /// The server cancelled (`ConnectionBudget.closeAll`): the request's task is cancelled with
    /// its connection, as a child of the server's task would be.
    @Test func aCancelledServerCancelsTheRequestsItsConnectionsAnswer() async throws {
        let seen = Seen()
        let (channel, _) = try await Self.connect(seen: seen)
        try await Self.send("/wait", on: channel)
        while seen.paths.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(2)) }
        let budget = ConnectionBudget.forTests()
        budget.register(channel)
        budget.closeAll()
        for _ in 0..<500 where seen.cancelled.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(seen.cancelled.withLock { $0 } == 1)
        try await channel.closeFuture.get()
    }

    /// The parser failing inside a body (`ConnectionGuardHandler` passes its error on): the
    /// handler's body read ends in that error, not as a body that ended, and the connection ends.
    @Test func aBodyTheParserFailsInIsAnErrorToItsHandler() async throws {
        let seen = Seen()
        let (channel, _) = try await Self.connect(seen: seen)
        try await channel.writeInbound(Self.head("/cut"))
        try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "half a bo")))
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidChunkSize)
        try await channel.closeFuture.get()
        for _ in 0..<500 where seen.bodyErrors.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(2)) }
        #expect(seen.bodies.withLock { $0 }.isEmpty, "a cut body was read as whole")
        #expect(seen.bodyErrors.withLock { $0.count } == 1)
    }

    @Test func aBodyPartWhereAHeadBelongsEndsTheConnection() async throws {
        let seen = Seen()
        let (channel, _) = try await Self.connect(seen: seen)
        try await channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "stray")))
        // The connection is closed (no answer, no request reaches the responder).
        try await channel.closeFuture.get()
        #expect(seen.tasks.withLock { $0.isEmpty })
    }
}
