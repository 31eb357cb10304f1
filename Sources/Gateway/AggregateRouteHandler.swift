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
    let answers: AnswerMemo

    func handle(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let resolved: Aggregator.ResolvedRequest
        do throws(ErrorDetail) {
            resolved = try aggregator.resolve(
                route: route, query: QueryItems.parse(request.uri.query), path: Self.pathValues(of: route, context),
                profileName: context.profile)
        } catch {
            throw GatewayError(.badRequest, error)
        }
        let aggregator = self.aggregator
        let logger = context.logger
        return try await answers.response(to: request, key: resolved.answerKey, now: aggregator.now) { refetch in
            try await aggregator.run(resolved, forceRefresh: refetch, logger: logger)
        }
    }

    /// The route's `{name}` segments as the router matched them, percent-decoded (checked then
    /// by `RouteParameter.parse` like a query value).
    static func pathValues(of route: Route, _ context: GatewayRequestContext) throws(ErrorDetail) -> [String: String] {
        var values: [String: String] = [:]
        for name in route.pathParameterNames {
            guard let raw = context.parameters.get(name), let value = raw.removingPercentEncoding else {
                throw .badParameter("\(name) is not a valid path segment")
            }
            values[name] = value
        }
        return values
    }

    /// `Cache-Control: no-cache` (or `max-age=0`, or `Pragma: no-cache`) asks for a refetch.
    static func wantsRefresh(_ request: Request) -> Bool {
        let cacheControl = request.headers[values: .cacheControl].joined(separator: ",").lowercased()
        let directives = HTTPFieldList.members(cacheControl)
        if directives.contains("no-cache") || directives.contains("max-age=0") { return true }
        return request.headers[.pragma]?.lowercased().contains("no-cache") == true
    }
}

extension HTTPField.Name {
    static let pragma = HTTPField.Name("Pragma")!
}
