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
        let resolved: Aggregator.ResolvedRequest
        do throws(ErrorDetail) {
            try SummaryService.checkQuery(QueryItems.parse(request.uri.query))
            resolved = try service.resolve(profileName: context.profile)
        } catch {
            throw GatewayError(.badRequest, error)
        }
        let service = self.service
        let logger = context.logger
        return try await answers.response(to: request, key: resolved.answerKey, now: service.aggregator.now) {
            refetch in
            try await service.run(resolved, forceRefresh: refetch, logger: logger)
        }
    }
}

/// `GET /v1/household/summary`: every member's summary at once (`HouseholdSummaryService`), with
/// the same caching headers, 304s and kept answers; 404 `no_household` without a household.
struct HouseholdSummaryHandler: Sendable {
    let service: HouseholdSummaryService
    let answers: AnswerMemo

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let resolved: HouseholdSummaryService.ResolvedRequest
        do throws(ErrorDetail) {
            resolved = try service.resolve(query: QueryItems.parse(request.uri.query))
        } catch {
            throw GatewayError(error.code == ErrorDetail.noHousehold.code ? .notFound : .badRequest, error)
        }
        let service = self.service
        let logger = context.logger
        return try await answers.response(to: request, key: resolved.answerKey, now: service.summary.aggregator.now) {
            refetch in
            try await service.run(resolved, forceRefresh: refetch, logger: logger)
        }
    }
}
