import Aggregation
import Hummingbird
import Logging
import Model

/// Every error leaves the gateway as JSON `{"error":{"code","message"}}`: the router's 404s
/// and 405s, decoding failures, and anything unexpected (as a 500 with no internals shown).
public struct ErrorJSONMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as GatewayError {
            throw error
        } catch let error as WriteFailed {
            throw error.answer
        } catch let error as ErrorDetail {
            throw GatewayError(.badRequest, error)
        } catch let error as HTTPError {
            throw GatewayError(
                error.status, code: Self.code(for: error.status),
                message: error.body ?? Self.message(for: error.status, path: request.uri.path))
        } catch let error as any HTTPResponseError {
            throw GatewayError(
                error.status, code: Self.code(for: error.status),
                message: Self.message(for: error.status, path: request.uri.path))
        } catch {
            context.logger.error("unhandled error", metadata: ["error.type": "\(type(of: error))"])
            throw GatewayError(
                .internalServerError, code: "internal", message: "the gateway failed to answer; see its log")
        }
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 413: "body_too_large"
        case 400: "bad_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        default: status.code >= 500 ? "internal" : "bad_request"
        }
    }

    static func message(for status: HTTPResponse.Status, path: String) -> String {
        switch status.code {
        case 404: "nothing at \(RouteParameter.shown(path, limit: 80))"
        case 405: "method not allowed on \(RouteParameter.shown(path, limit: 80))"
        default: status.reasonPhrase
        }
    }
}
