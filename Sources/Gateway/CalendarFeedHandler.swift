import Aggregation
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// `GET /v1/calendar.ics?from=&to=`: the household's day as an iCalendar feed for phones and
/// calendar apps, with a weak `ETag` (equal while the entries are) and `304` for their polls.
/// A client key (`Authorization: Bearer`) or the client's feed key (`?key=`) reads it.
struct CalendarFeedHandler: Sendable {
    let service: CalendarFeedService

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let feed: CalendarFeedService.Feed
        do throws(ErrorDetail) {
            let query = try QueryItems.parse(request.uri.query)
            feed = try await service.feed(query: query, profileName: context.profile, logger: context.logger)
        } catch {
            throw GatewayError(.badRequest, error)
        }
        var headers: HTTPFields = [
            .contentType: "text/calendar; charset=utf-8",
            .eTag: "W/" + feed.etag,
            .cacheControl: "private, max-age=300",
            .contentDisposition: "inline; filename=\"daygate.ics\"",
        ]
        if !feed.missing.isEmpty {
            // Said in a header, not in the feed: a calendar app shows what there is.
            headers[HTTPField.Name("X-Daygate-Missing")!] = feed.missing.keys.sorted().joined(separator: ", ")
            context.logger.warning(
                "calendar feed without some sections",
                metadata: ["missing": "\(feed.missing.map { "\($0.key): \($0.value.code)" }.sorted())"])
        }
        if RenderedAnswer.isNotModified(
            status: .ok, etag: feed.etag, method: request.method, ifNoneMatch: request.headers[values: .ifNoneMatch])
        {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(
            status: .ok, headers: headers,
            body: request.method == .head ? .init() : .init(byteBuffer: ByteBuffer(string: feed.text)))
    }
}
