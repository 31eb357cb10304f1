import Aggregation
import Foundation
import Hummingbird
import Model

/// `GET /v1/summary`: no parameters (names starting with `_` are ignored, for cache-busting);
/// the same caching headers and 304 as every aggregated answer (`AggregateAnswer+HTTP`).
struct SummaryHandler: Sendable {
    let service: SummaryService

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let answer: AggregateAnswer
        do throws(ErrorDetail) {
            let query = try QueryItems.parse(request.uri.query)
            if let (name, _) = query.first(where: { !$0.0.hasPrefix("_") }) {
                throw .badParameter("unknown parameter \"\(RouteParameter.shown(name))\" for \(SummaryService.path) (it takes none)")
            }
            answer = try await service.run(
                profileName: context.profile, forceRefresh: AggregateRouteHandler.wantsRefresh(request), logger: context.logger
            )
        } catch {
            throw GatewayError(.badRequest, error)
        }
        return answer.response(for: request)
    }
}
