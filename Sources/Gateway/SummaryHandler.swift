import Aggregation
import Foundation
import Hummingbird
import Model

/// `GET /v1/summary`: no parameters (names starting with `_` are ignored, for cache-busting);
/// the same caching headers and 304 as every aggregated answer (`AggregateAnswer+HTTP`), and
/// kept for reuse like them (`AnswerMemo`), so Home Assistant's polls take the hot path.
struct SummaryHandler: Sendable {
    let service: SummaryService
    let answers: AnswerMemo

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let forceRefresh = AggregateRouteHandler.wantsRefresh(request)
        let aggregator = service.aggregator
        let resolved: Aggregator.ResolvedRequest
        do throws(ErrorDetail) {
            try SummaryService.checkQuery(QueryItems.parse(request.uri.query))
            resolved = try service.resolve(profileName: context.profile)
        } catch {
            throw GatewayError(.badRequest, error)
        }
        let service = self.service
        let logger = context.logger
        do {
            let rendered = try await answers.answer(for: resolved.answerKey, fresh: forceRefresh, now: aggregator.now) {
                try await service.run(resolved, forceRefresh: forceRefresh, logger: logger).rendered
            }
            return rendered.response(for: request)
        } catch let error as ErrorDetail {
            throw GatewayError(.badRequest, error)
        }
    }
}
