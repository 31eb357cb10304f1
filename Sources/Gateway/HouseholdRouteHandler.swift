import Aggregation
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// Serves a household route (`household:` in its route file): every member's sections through
/// `HouseholdService`, with the same caching headers, 304s and kept answers as any aggregated
/// answer. Admission has already checked the key's `household` scope (the path decides it).
struct HouseholdRouteHandler: Sendable {
    let route: Route
    let service: HouseholdService
    let answers: AnswerMemo

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let resolved: HouseholdService.ResolvedRequest
        do throws(ErrorDetail) {
            resolved = try service.resolve(route: route, query: QueryItems.parse(request.uri.query))
        } catch {
            throw GatewayError(error.code == ErrorDetail.noHousehold.code ? .notFound : .badRequest, error)
        }
        let service = self.service
        let logger = context.logger
        return try await answers.response(to: request, key: resolved.answerKey, now: service.aggregator.now) {
            refetch in
            try await service.run(resolved, forceRefresh: refetch, logger: logger)
        }
    }
}
