import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

@testable import Gateway

/// Each request runs in a child task of its connection's task (`GatewayHTTP1Channel.inChildTask`),
/// so what it allocates on its async stack is given back when its answer is written, instead of
/// staying with the connection for as long as it is open.
@Suite struct RequestTaskTests {
    @Test func eachRequestRunsInATaskOfItsOwnThatEndsWithIt() async throws {
        let seen = Mutex<[Int]>([])
        let respond = GatewayHTTP1Channel.inChildTask { _, writer, _ in
            seen.withLock { $0.append(withUnsafeCurrentTask { $0?.hashValue } ?? 0) }
            try await writer.writeResponse(HTTPResponse(status: .noContent))
        }
        let (outbound, sink) = NIOAsyncChannelOutboundWriter<HTTPResponsePart>.makeTestingWriter()
        let connection = withUnsafeCurrentTask { $0?.hashValue } ?? 0
        for _ in 0..<2 {
            let request = Request(
                head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/healthz"),
                body: RequestBody(buffer: ByteBuffer()))
            try await respond(request, ResponseWriter(outbound: outbound), EmbeddedChannel())
        }
        let tasks = seen.withLock { $0 }
        #expect(tasks.count == 2)
        #expect(!tasks.contains(connection), "a request ran on the connection's own task")
        // The answers were written, through the writer handed to the child.
        var written = 0
        for try await part in sink {
            if case .end = part { written += 1 }
            if written == 2 { break }
        }
        #expect(written == 2)
    }
}
