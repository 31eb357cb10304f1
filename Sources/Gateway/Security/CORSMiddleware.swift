import Foundation
import HTTPTypes
import Hummingbird
import Model

/// Cross-origin access for the origins listed in `cors.origins`, and for no other: their
/// preflights are answered (204 with the allowed methods and headers), their answers carry
/// `Access-Control-Allow-Origin` and expose the caching headers. A preflight from any other
/// origin is a 403; its plain requests get no CORS headers, so its page cannot read them.
struct DaygateCORSMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let origins: Set<String>

    static let allowedMethods = "GET, HEAD, POST, PUT, DELETE"
    static let allowedHeaders =
        "Authorization, Content-Type, Cache-Control, If-None-Match, Idempotency-Key, X-Request-Id"
    static let exposedHeaders = "ETag, Age, Cache-Status, Server-Timing, Retry-After, X-Request-Id"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let origin = request.headers[.origin]
        let listed = origin.map { origins.contains($0) } ?? false
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            guard listed, let origin else {
                throw GatewayError(
                    .forbidden, code: "cors_origin_not_allowed", message: "this origin is not in cors.origins")
            }
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin,
                    .accessControlAllowMethods: Self.allowedMethods,
                    .accessControlAllowHeaders: Self.allowedHeaders,
                    .accessControlMaxAge: "600",
                    .vary: "Origin",
                ])
        }
        guard listed, let origin else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            Self.addHeaders(to: &response.headers, origin: origin)
            return response
        } catch var error as GatewayError {
            Self.addHeaders(to: &error.headers, origin: origin)
            throw error
        }
    }

    static func addHeaders(to headers: inout HTTPFields, origin: String) {
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = exposedHeaders
        headers[.vary] = "Origin"
    }
}
