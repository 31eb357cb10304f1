/// `{"code","message"}`: the error object of every gateway error body and of a section that
/// failed. Messages are written for people and never carry a secret.
public struct ErrorDetail: Sendable, Hashable, Codable, Error {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// The body of every error answer: `{"error":{"code","message"}}`.
public struct ErrorBody: Sendable, Codable {
    public var error: ErrorDetail

    public init(_ error: ErrorDetail) {
        self.error = error
    }
}

/// An error from a backend call that knows how to present itself: a stable code, a scrubbed
/// message, and how long the upstream asked us to wait (`Retry-After`).
public protocol UpstreamFailure: Error, Sendable {
    var detail: ErrorDetail { get }
    var retryAfter: Double? { get }
}
