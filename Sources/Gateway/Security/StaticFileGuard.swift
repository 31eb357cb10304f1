import Foundation
import HTTPTypes
import Hummingbird
import Model

/// In front of the dashboard's files: a path with a dot-segment (`..`, `.git`, `.env`), an
/// encoded slash or backslash, or a NUL is a 404 before any file is looked up, so nothing
/// outside static/ and no hidden file is ever served. Answers get `nosniff`, and HTML a
/// Content-Security-Policy that allows only the page's own scripts, styles and API. `/wall` is
/// the wall page's `static/wall/index.html`.
struct StaticFileGuard: RouterMiddleware {
    typealias Context = GatewayRequestContext

    /// Pages served from a folder's `index.html` at the folder's own path: the wall (`/wall`).
    static let pages = ["/wall": "/wall/index.html"]

    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let raw = request.uri.path
        // Most paths (every API call) have no escapes and no dots: nothing to look into.
        if raw.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") })
        {
            let lowered = raw.lowercased()
            guard !lowered.contains("%2f"), !lowered.contains("%5c"), !raw.contains("\\"), !lowered.contains("%00")
            else {
                throw GatewayError(.notFound, code: "not_found", message: "nothing at this path")
            }
            let segments = (raw.removingPercentEncoding ?? raw).split(separator: "/", omittingEmptySubsequences: false)
            guard !segments.contains(where: { $0.hasPrefix(".") }) else {
                throw GatewayError(.notFound, code: "not_found", message: "nothing at this path")
            }
        }
        var request = request
        if let page = Self.pages[raw], request.method == .get || request.method == .head {
            // A page in a folder of static/, asked without the trailing slash every canonical
            // path lacks (the file server would redirect to `/wall/`, which is not canonical).
            var head = request.head
            head.path = page + (request.uri.query.map { "?" + $0 } ?? "")
            request = Request(head: head, body: request.body)
        }
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        if response.headers[.contentType]?.hasPrefix("text/html") == true {
            response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
            response.headers[.xFrameOptions] = "DENY"
            response.headers[.referrerPolicy] = "no-referrer"
        }
        return response
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
