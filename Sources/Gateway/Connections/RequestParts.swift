import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// A connection's request parts as its loop reads them (`GatewayHTTP1Channel.handle`): the next
/// request's head, then that request's body up to its end. Read by one task at a time — the
/// connection's task while it waits for a request, the request's own child task while the
/// request is answered — never by two at once: the connection's task waits for the child.
final class RequestParts: @unchecked Sendable {
    /// A part that cannot come where it came (a body part where a head belongs, a head inside
    /// a body): SwiftNIO's decoder never gives one; the connection is closed.
    struct UnexpectedPart: Error {}

    private var iterator: NIOAsyncChannelInboundStream<HTTPRequestPart>.AsyncIterator
    /// Whether the current request's body has been read to its end (or the connection ended).
    private var bodyDone = true

    init(_ inbound: NIOAsyncChannelInboundStream<HTTPRequestPart>) {
        iterator = inbound.makeAsyncIterator()
    }

    /// The next request's head; nil when the connection ends first. The current request's
    /// body must have been read (`skipBody`).
    func nextHead() async throws -> HTTPRequest? {
        precondition(bodyDone, "a request's head was asked for before the previous body was read")
        guard let part = try await iterator.next() else { return nil }
        guard case .head(let head) = part else { throw UnexpectedPart() }
        bodyDone = false
        return head
    }

    /// The current request's next body part; nil at its end (and from then on).
    func nextBodyPart() async throws -> ByteBuffer? {
        if bodyDone { return nil }
        switch try await iterator.next() {
        case .body(let buffer):
            return buffer
        case .end, nil:
            bodyDone = true
            return nil
        case .head:
            throw UnexpectedPart()
        }
    }

    /// Reads what is left of the current request's body (what its handler did not read).
    func skipBody() async throws {
        while try await nextBodyPart() != nil {}
    }

    /// The current request's body as Hummingbird reads it.
    var body: RequestBody { RequestBody(asyncSequence: Body(parts: self)) }

    struct Body: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let parts: RequestParts

        func makeAsyncIterator() -> Iterator { Iterator(parts: parts) }

        struct Iterator: AsyncIteratorProtocol {
            let parts: RequestParts
            mutating func next() async throws -> ByteBuffer? { try await parts.nextBodyPart() }
        }
    }
}
