import Aggregation
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// Serves one route file's endpoint: query → aggregator → JSON with cache headers
/// (`AggregateAnswer+HTTP`).
struct AggregateRouteHandler: Sendable {
    let route: Route
    let aggregator: Aggregator

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let query: [(String, String)]
        let answer: AggregateAnswer
        do {
            query = try QueryItems.parse(request.uri.query)
            answer = try await aggregator.run(
                route: route, query: query, profileName: context.profile, forceRefresh: Self.wantsRefresh(request),
                logger: context.logger
            )
        } catch {
            throw GatewayError(.badRequest, error)
        }
        return answer.response(for: request)
    }

    /// `Cache-Control: no-cache` (or `max-age=0`, or `Pragma: no-cache`) asks for a refetch.
    static func wantsRefresh(_ request: Request) -> Bool {
        let cacheControl = request.headers[values: .cacheControl].joined(separator: ",").lowercased()
        let directives = cacheControl.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains("no-cache") || directives.contains("max-age=0") { return true }
        return request.headers[HTTPField.Name("Pragma")!]?.lowercased().contains("no-cache") == true
    }
}
