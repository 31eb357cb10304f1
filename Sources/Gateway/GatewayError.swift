import Foundation
import Hummingbird
import Model

/// An error answer: `{"error":{"code","message"}}` with its status.
public struct GatewayError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var detail: ErrorDetail
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.detail = ErrorDetail(code: code, message: message)
        self.headers = headers
    }

    public init(_ status: HTTPResponse.Status, _ detail: ErrorDetail) {
        self.status = status
        self.detail = detail
        self.headers = [:]
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: Self.body(detail))))
    }

    /// `{"error":{"code","message"}}` as bytes.
    static func body(_ detail: ErrorDetail) -> Data {
        (try? JSONCoding.encode(ErrorBody(detail))) ?? Data(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
    }
}
