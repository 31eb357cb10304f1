import Aggregation
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// Serves one route file's endpoint: query → aggregator → JSON with cache headers.
struct AggregateRouteHandler: Sendable {
    let route: Route
    let aggregator: Aggregator

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let query: [(String, String)]
        let answer: AggregateAnswer
        do {
            query = try QueryItems.parse(request.uri.query)
            answer = try await aggregator.run(
                route: route, query: query, profileName: context.profile, forceRefresh: Self.wantsRefresh(request)
            )
        } catch {
            throw GatewayError(.badRequest, error)
        }
        var headers = HTTPFields()
        if let maxAge = answer.maxAge {
            headers[.cacheControl] = "max-age=\(maxAge)"
        } else {
            headers[.cacheControl] = "no-cache"
        }
        headers[.age] = String(answer.ageSeconds)
        return JSONResponse.make(status: .init(code: answer.status), body: answer.body, headers: headers)
    }

    /// `Cache-Control: no-cache` (or `max-age=0`, or `Pragma: no-cache`) asks for a refetch.
    static func wantsRefresh(_ request: Request) -> Bool {
        let cacheControl = request.headers[values: .cacheControl].joined(separator: ",").lowercased()
        let directives = cacheControl.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains("no-cache") || directives.contains("max-age=0") { return true }
        return request.headers[HTTPField.Name("Pragma")!]?.lowercased().contains("no-cache") == true
    }
}
