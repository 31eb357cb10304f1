import Foundation
import HTTPTypes
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
        let incoming = request.headers[.requestID]
        let id = incoming.flatMap { Self.isSane($0) ? $0 : nil } ?? Self.newID()
        context.requestID = id
        context.logger[metadataKey: "request_id"] = .string(id)
        let started = ContinuousClock.now
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = id
            log(request, status: response.status.code, started: started, context: context)
            return response
        } catch let error as any HTTPResponseError {
            log(request, status: error.status.code, started: started, context: context)
            if let gatewayError = error as? GatewayError {
                var withID = gatewayError
                withID.headers[.requestID] = id
                throw withID
            }
            throw error
        }
    }

    private func log(_ request: Request, status: Int, started: ContinuousClock.Instant, context: Context) {
        Self.logAccess(context.logger, method: request.method, path: request.uri.path, status: status, started: started)
    }

    /// The access line: `GET /v1/today` with the status and the time taken.
    static func logAccess(_ logger: Logger, method: HTTPRequest.Method, path: String, status: Int, started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.milliseconds
        logger.info("\(method) \(path)", metadata: [
            "status": "\(status)", "duration_ms": "\(String(format: "%.1f", milliseconds))",
        ])
    }

    static func isSane(_ value: String) -> Bool {
        value.count <= 64 && !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// 48 random bits as `xxxxxxxx-xxxx` (lowercase hex).
    static func newID() -> String {
        let hex = Array("0123456789abcdef".utf8)
        var bits = UInt64.random(in: 0..<(1 << 48))
        var bytes = [UInt8](repeating: UInt8(ascii: "-"), count: 13)
        for index in [12, 11, 10, 9, 7, 6, 5, 4, 3, 2, 1, 0] {
            bytes[index] = hex[Int(bits & 0xF)]
            bits >>= 4
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-Id")!
}
