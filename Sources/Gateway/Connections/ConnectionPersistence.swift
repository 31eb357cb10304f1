import NIOCore
import NIOHTTP1

/// Whether a connection stays open after each answer (RFC 9112 §9.3, §9.6), decided per
/// request in the order requests came (answers go out in that order on HTTP/1):
///
/// - HTTP/1.1 stays open unless the request says `Connection: close` (any case, in a list
///   too); HTTP/1.0 closes unless it says `Connection: keep-alive` (SwiftNIO's `isKeepAlive`).
/// - The answer to a request that closes says `Connection: close`, and the connection is
///   closed as soon as it is written; requests that came after it on the same connection are
///   not read ("MUST NOT process any further requests").
/// - An HTTP/1.0 client is answered in HTTP/1.0: it cannot read chunked framing, so an answer
///   without a `Content-Length` (a stream) ends with the connection, and only an answer with
///   one keeps a keep-alive connection open (saying `Connection: keep-alive`, as 1.0 needs).
struct ConnectionPersistence {
    struct Request {
        var version: HTTPVersion
        var keepAlive: Bool
    }

    /// Requests read whose answer has not been written to its end, oldest first.
    private var waiting = CircularBuffer<Request>(initialCapacity: 2)
    /// Whether the answer being written (to the oldest request) ends the connection.
    private var closesAfterAnswer = false
    /// A request that closes the connection has been read: nothing after it is.
    private(set) var closing = false

    /// A request's head was read; false when it comes after one that closes and must be
    /// dropped.
    mutating func requestRead(_ head: HTTPRequestHead) -> Bool {
        guard !closing else { return false }
        let keepAlive = head.isKeepAlive
        waiting.append(Request(version: head.version, keepAlive: keepAlive))
        if !keepAlive { closing = true }
        return true
    }

    /// The head of the answer to the oldest request, as it must go out: its version and
    /// `Connection` header.
    mutating func answerBegins(_ head: HTTPResponseHead) -> HTTPResponseHead {
        guard let request = waiting.first else { return head }
        var head = head
        let http10 = request.version.major == 1 && request.version.minor == 0
        var keepAlive = request.keepAlive && head.isKeepAlive
        if http10 {
            head.version = .http1_0
            if head.headers["content-length"].isEmpty { keepAlive = false }
        }
        closesAfterAnswer = !keepAlive
        if !keepAlive {
            closing = true
            head.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if http10 {
            head.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        return head
    }

    /// The answer to the oldest request is written to its end: whether to close now.
    mutating func answerEnds() -> Bool {
        guard waiting.popFirst() != nil else { return false }
        let close = closesAfterAnswer
        closesAfterAnswer = false
        return close
    }

    /// The oldest request was answered whole elsewhere (the hot path, which answers only
    /// HTTP/1.1 requests that keep the connection): whether to close now.
    mutating func answeredElsewhere() -> Bool {
        guard let request = waiting.popFirst() else { return false }
        return !request.keepAlive
    }
}
