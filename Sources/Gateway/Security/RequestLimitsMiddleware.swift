import Foundation
import HTTPTypes
import Hummingbird
import Model
import NIOHTTP1

/// Bounds on what a request may carry, checked before anything else reads it: headers (count
/// and total size → 431), a declared body over 64 KB (→ 413), and writes that are not
/// `Content-Type: application/json` (→ 415; a browser cannot send that cross-site without a
/// CORS preflight, so no page on another site can post to the household's gateway).
struct RequestLimitsMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    static let maximumBodyBytes = 64 * 1024
    static let maximumHeaderBytes = 32 * 1024
    static let maximumHeaderCount = 100

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
                throw GatewayError(.contentTooLarge, code: "body_too_large", message: "a request body is at most \(Self.maximumBodyBytes / 1024) KB")
            }
        }
        if Self.isWrite(request.method) {
            let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard type == "application/json" else {
                throw GatewayError(
                    .unsupportedMediaType, code: "unsupported_media_type", message: "writes take Content-Type: application/json"
                )
            }
        }
        return try await next(request, context)
    }

    /// At most `maximumHeaderCount` headers and `maximumHeaderBytes` of them.
    static func headersWithinLimits(_ headers: HTTPFields) -> Bool {
        withinLimits(headers.lazy.map { ($0.name.rawName, $0.value) })
    }

    /// The same for headers as SwiftNIO's HTTP/1 decoder gives them (the hot path).
    static func headersWithinLimits(_ headers: HTTPHeaders) -> Bool {
        withinLimits(headers.lazy.map { ($0.name, $0.value) })
    }

    private static func withinLimits(_ fields: some Sequence<(String, String)>) -> Bool {
        var bytes = 0
        var count = 0
        for (name, value) in fields {
            count += 1
            bytes += name.utf8.count + value.utf8.count + 4
        }
        return count <= maximumHeaderCount && bytes <= maximumHeaderBytes
    }

    static func isWrite(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch
    }
}
