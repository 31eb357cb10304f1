import Aggregation
import Cache
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An aggregated answer as it goes out over HTTP, headers and body built once
/// (`AggregateAnswer.rendered`), so that `AnswerMemo` can hand it to every identical request
/// for as long as it stays the same.
struct RenderedAnswer: Sendable {
    var status: HTTPResponse.Status
    /// Content-Type, ETag, Cache-Control, Age, Cache-Status and Server-Timing.
    var headers: HTTPFields
    var body: ByteBuffer
    var etag: String
    /// See `AggregateAnswer.reusableUntil`; nil when the answer may not be reused.
    var reusableUntil: Date?
    var generation: UInt64
    var profile: String
    /// What each reuse counts per section (`AggregateAnswer.reuses`).
    var reuses: [SectionReuse]
    /// The same answer at a later moment, rendered (`AggregateAnswer.reaged`).
    var reaged: (@Sendable (_ at: Date) -> RenderedAnswer?)? = nil

    /// The same answer for a request that joined the composition of another (a `no-cache`
    /// burst): its `Cache-Status` says `collapsed`, as a request that joined a fetch does.
    var joined: RenderedAnswer {
        guard let status = headers[.cacheStatus], !status.contains("; collapsed") else { return self }
        var answer = self
        answer.headers[.cacheStatus] =
            status.range(of: "; detail=").map { status.replacingCharacters(in: $0, with: "; collapsed; detail=") }
            ?? status + "; collapsed"
        return answer
    }

    /// The answer for `request`: 304 without a body when the client's copy is current.
    func response(for request: Request) -> Response {
        if Self.isNotModified(
            status: status, etag: etag, method: request.method, ifNoneMatch: request.headers[values: .ifNoneMatch])
        {
            return Response(status: .notModified, headers: notModifiedHeaders)
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The headers of its `304`: all but Content-Type.
    var notModifiedHeaders: HTTPFields {
        var headers = self.headers
        headers[.contentType] = nil
        return headers
    }

    /// Whether a request with `method` and these `If-None-Match` values gets `304` for an
    /// answer with `status` and `etag`.
    static func isNotModified(
        status: HTTPResponse.Status, etag: String, method: HTTPRequest.Method, ifNoneMatch: [String]
    ) -> Bool {
        guard status == .ok, method == .get || method == .head, !ifNoneMatch.isEmpty,
            let condition = (ifNoneMatch.count == 1 ? ifNoneMatch[0] : ifNoneMatch.joined(separator: ",")).nilIfEmpty
        else { return false }
        return AggregateAnswer.matches(condition, etag: etag)
    }
}
