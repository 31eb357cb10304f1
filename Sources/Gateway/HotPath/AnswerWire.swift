import Aggregation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// A kept answer as HTTP/1.1 bytes, made once when `AnswerMemo` keeps it: the status line and
/// every header the answer owns, and those every answer of the server carries, for the full
/// answer and for its `304`. The hot path adds the per-request headers (`HotAnswers.answer`)
/// and writes them straight to the socket, past the response encoder. A class: a connection
/// holds on to it without copying its buffers.
final class AnswerWire: Sendable {
    /// What every answer carries (`X-Content-Type-Options`, `Server`), as the router adds it.
    static let serverHeaders = "X-Content-Type-Options: nosniff\r\nServer: \(GatewayApplication.serverName)\r\n"

    /// `HTTP/1.1 200 OK` … `Content-Length: <body>`, then `serverHeaders`, each line ending in CRLF.
    let full: ByteBuffer
    /// The same for `304 Not Modified` (no Content-Type or Content-Length); nil when the
    /// answer is not a 200, which no `If-None-Match` turns into a 304.
    let notModified: ByteBuffer?
    let body: ByteBuffer
    let status: Int
    let etag: String

    init(_ answer: RenderedAnswer) {
        body = answer.body
        status = answer.status.code
        etag = answer.etag
        full = Self.head(status: answer.status, headers: answer.headers, contentLength: answer.body.readableBytes)
        if answer.status == .ok {
            notModified = Self.head(status: .notModified, headers: answer.notModifiedHeaders, contentLength: nil)
        } else {
            notModified = nil
        }
    }

    /// The head for a request with `method` and these `If-None-Match` values, and whether the
    /// body goes after it.
    func head(method: HTTPRequest.Method, ifNoneMatch: [String]) -> (bytes: ByteBuffer, status: Int, withBody: Bool) {
        if let notModified,
            RenderedAnswer.isNotModified(status: .ok, etag: etag, method: method, ifNoneMatch: ifNoneMatch)
        {
            return (notModified, HTTPResponse.Status.notModified.code, false)
        }
        return (full, status, method != .head)
    }

    /// Status line and header lines as SwiftNIO's `HTTPResponseEncoder` writes them for the
    /// router. The status line's reason phrase is the one the router's answer gets: a status
    /// made from its code alone (`HTTPResponse.Status(code:)`, as a kept answer's is) has none,
    /// and on the router's way SwiftNIO gives it its standard one (`200 OK`, not `200 `).
    private static func head(status: HTTPResponse.Status, headers: HTTPFields, contentLength: Int?) -> ByteBuffer {
        let line = HTTPResponseStatus(statusCode: status.code, reasonPhrase: status.reasonPhrase)
        var buffer = ByteBuffer()
        buffer.writeString("HTTP/1.1 \(line.code) \(line.reasonPhrase)\r\n")
        for field in headers where field.name != .contentLength {
            buffer.writeString(field.name.rawName)
            buffer.writeString(": ")
            buffer.writeString(field.value)
            buffer.writeString("\r\n")
        }
        if let contentLength { buffer.writeString("Content-Length: \(contentLength)\r\n") }
        buffer.writeString(serverHeaders)
        return buffer
    }
}
