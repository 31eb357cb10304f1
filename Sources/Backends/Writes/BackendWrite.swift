import Foundation
import Model
import OpenAPIKit

/// One write endpoint of a backend (`POST /v1/tasks`). The backend's home declares it: its
/// route, the body it takes, how it calls the backend, and which cache entries the result
/// makes wrong (`WriteResult.invalidations`, typed). The gateway serves every registered write
/// the same way: body limits, `Idempotency-Key` for POSTs, one upstream call never retried
/// blindly, the invalidations, and errors as JSON.
public protocol BackendWrite: Sendable {
    var method: WriteMethod { get }
    /// The route, with `{name}` path parameters (`/v1/events/{id}`).
    var path: String { get }
    /// The body fields the write accepts (any other is a 400); nil when it takes no body.
    var fields: Set<String>? { get }
    /// How /openapi.json documents it: summary, path parameters, request body, answer, and what
    /// its errors mean (`WriteDocumentation`).
    var documentation: WriteDocumentation { get }

    /// Checks the request before anything is reserved or sent: a bad body is a 400 here
    /// (`WriteRefusal`), and no `Idempotency-Key` is spent on it.
    func check(_ request: WriteRequest) throws

    /// Calls the backend once and says what to answer and what to invalidate.
    func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult

    /// What the write makes wrong if it happened, dropped also when its outcome is unknown (a
    /// timeout, a 5xx, an answer lost: it may have landed), so the next read shows whether it
    /// did. Default: nothing.
    func invalidationsIfItMayHaveHappened(_ request: WriteRequest) -> [CacheInvalidation]
}

extension BackendWrite {
    /// POSTs create: they honour `Idempotency-Key`, so a retried create is not a second one.
    public var honoursIdempotencyKey: Bool { method == .post }

    public func check(_ request: WriteRequest) throws {}

    public func invalidationsIfItMayHaveHappened(_ request: WriteRequest) -> [CacheInvalidation] { [] }

    /// The query parameters the write takes: those its documentation declares (so the two
    /// cannot differ). Any other name in the request's query is a 400.
    public var queryNames: Set<String> {
        Set(documentation.parameters.filter { $0.parameter.location == .query }.map(\.parameter.name))
    }
}

/// The HTTP method of a write.
public enum WriteMethod: String, Sendable {
    case post = "POST"
    case put = "PUT"
    case delete = "DELETE"
}
