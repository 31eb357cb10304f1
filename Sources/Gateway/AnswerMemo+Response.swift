import Aggregation
import Foundation
import Hummingbird
import Model

extension AnswerMemo {
    /// `request`'s answer as a response (its caching headers, 304 to a matching `If-None-Match`):
    /// the answer kept for `key`, or one `compose` makes — always a new one, refetched, when
    /// the request says `Cache-Control: no-cache` (`compose` is told). An `ErrorDetail` thrown
    /// while composing is the client's 400. What every aggregated route, the summary and the
    /// household's answers are served with.
    func response(
        to request: Request, key: String, now: @escaping @Sendable () -> Date,
        compose: @escaping @Sendable (_ forceRefresh: Bool) async throws -> AggregateAnswer
    ) async throws -> Response {
        let forceRefresh = AggregateRouteHandler.wantsRefresh(request)
        do {
            let rendered = try await answer(for: key, fresh: forceRefresh, now: now) {
                try await compose(forceRefresh).rendered
            }
            return rendered.response(for: request)
        } catch let error as ErrorDetail {
            throw GatewayError(.badRequest, error)
        }
    }
}
