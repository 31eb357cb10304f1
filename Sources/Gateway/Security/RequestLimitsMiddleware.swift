import Foundation
import HTTPTypes
import Hummingbird
import Model

/// Bounds on what a request may carry, checked before anything else reads it: headers (count
/// and total size → 431), a declared body over 64 KB (→ 413), and writes that are not
/// `Content-Type: application/json` (→ 415; a browser cannot send that cross-site without a
/// CORS preflight, so no page on another site can post to the household's gateway).
struct RequestLimitsMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    static let maximumBodyBytes = 64 * 1024
    static let maximumHeaderBytes = 32 * 1024
    static let maximumHeaderCount = 100

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard Self.headersWithinLimits(request.headers) else {
            throw GatewayError(
                .init(code: 431, reasonPhrase: "Request Header Fields Too Large"), code: "headers_too_large",
                message: "at most \(Self.maximumHeaderCount) headers and \(Self.maximumHeaderBytes / 1024) KB of them"
            )
        }
        if let length = request.headers[.contentLength] {
            guard let value = Int(length), value >= 0 else {
                throw GatewayError(.badRequest, code: "bad_request", message: "Content-Length is not a number")
            }
            guard value <= Self.maximumBodyBytes else {
                throw GatewayError(
                    .contentTooLarge, code: "body_too_large",
                    message: "a request body is at most \(Self.maximumBodyBytes / 1024) KB")
            }
        }
        if Self.isWrite(request.method) {
            let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                .lowercased()
            guard type == "application/json" else {
                throw GatewayError(
                    .unsupportedMediaType, code: "unsupported_media_type",
                    message: "writes take Content-Type: application/json"
                )
            }
        }
        return try await next(request, context)
    }

    /// At most `maximumHeaderCount` headers and `maximumHeaderBytes` of them.
    static func headersWithinLimits(_ headers: HTTPFields) -> Bool {
        var bytes = 0
        for field in headers { bytes += size(name: field.name.rawName, value: field.value) }
        return withinLimits(count: headers.count, bytes: bytes)
    }

    /// What one header counts against `maximumHeaderBytes` (as on the wire: `name: value\r\n`).
    static func size(name: String, value: String) -> Int {
        name.utf8.count + value.utf8.count + 4
    }

    static func withinLimits(count: Int, bytes: Int) -> Bool {
        count <= maximumHeaderCount && bytes <= maximumHeaderBytes
    }

    static func isWrite(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch
    }
}
