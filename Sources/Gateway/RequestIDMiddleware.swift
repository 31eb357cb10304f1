import Foundation
import Hummingbird
import Logging
import Model

/// Gives each request an id (the client's `X-Request-Id` when it is sane, else a new one),
/// puts it on every log line of the request and on the answer, and logs one access line.
public struct RequestIDMiddleware: RouterMiddleware {
    public typealias Context = GatewayRequestContext

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let incoming = request.headers[.init("X-Request-Id")!]
        let id = incoming.flatMap { Self.isSane($0) ? $0 : nil } ?? Self.newID()
        context.requestID = id
        context.logger[metadataKey: "request_id"] = .string(id)
        let started = ContinuousClock.now
        do {
            var response = try await next(request, context)
            response.headers[.init("X-Request-Id")!] = id
            log(request, status: response.status.code, started: started, context: context)
            return response
        } catch let error as any HTTPResponseError {
            log(request, status: error.status.code, started: started, context: context)
            if let gatewayError = error as? GatewayError {
                var withID = gatewayError
                withID.headers[.init("X-Request-Id")!] = id
                throw withID
            }
            throw error
        }
    }

    private func log(_ request: Request, status: Int, started: ContinuousClock.Instant, context: Context) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.milliseconds
        context.logger.info("\(request.method) \(request.uri.path)", metadata: [
            "status": "\(status)", "duration_ms": "\(String(format: "%.1f", milliseconds))",
        ])
    }

    static func isSane(_ value: String) -> Bool {
        value.count <= 64 && !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    static func newID() -> String {
        String(UUID().uuidString.prefix(13)).lowercased()
    }
}
