import Aggregation
import HTTPTypes
import Hummingbird

/// The router's side of `Admission`: answers CORS preflights, refuses what may not be
/// answered, and otherwise sets the profile (and client) of the request and adds the CORS
/// headers of a listed origin to its answer — also to an error answer from further in.
struct AdmissionMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let admission: Admission

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var bytes = 0
        for field in request.headers { bytes += Admission.size(name: field.name.rawName, value: field.value) }
        let asked = Admission.Asked(
            method: request.method, path: request.uri.path, host: request.head.authority,
            authorization: request.headers[.authorization],
            feedKey: request.uri.path == CalendarFeedService.path
                ? (try? QueryItems.parse(request.uri.query))?.last { $0.0 == CalendarFeedService.keyParameter }?.1
                : nil,
            origin: request.headers[.origin],
            isPreflight: request.method == .options && request.headers[.accessControlRequestMethod] != nil,
            headerCount: request.headers.count, headerBytes: bytes, contentLength: request.headers[.contentLength],
            contentType: request.headers[.contentType]
        )
        switch admission.decide(asked) {
        case .preflight(let origin):
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin,
                    .accessControlAllowMethods: Admission.allowedMethods,
                    .accessControlAllowHeaders: Admission.allowedHeaders,
                    .accessControlMaxAge: "600",
                    .vary: "Origin",
                ])
        case .refuse(var error, let origin):
            if error.status == .unauthorized {
                context.logger.notice(
                    "request without a valid client key",
                    metadata: ["path": "\(RouteParameter.shown(request.uri.path, limit: 80))"])
            }
            if let origin { Admission.addCORSHeaders(to: &error.headers, origin: origin) }
            throw error
        case .serve(let profile, let client, let origin):
            var context = context
            context.profile = profile
            context.client = client
            context.scopes = admission.scopes(ofClient: client)
            if let client { context.logger[metadataKey: "client"] = .string(client) }
            guard let origin else { return try await next(request, context) }
            do {
                var response = try await next(request, context)
                Admission.addCORSHeaders(to: &response.headers, origin: origin)
                return response
            } catch var error as GatewayError {
                Admission.addCORSHeaders(to: &error.headers, origin: origin)
                throw error
            }
        }
    }
}
