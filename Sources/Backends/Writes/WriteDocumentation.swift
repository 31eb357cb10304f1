import Model

/// How /openapi.json documents one write, declared in its backend's home. The write says what
/// is its own: summary, path parameters, request body, success answer, and what its 400, 403,
/// 404, 409 and 429 mean for it. The core adds what every write shares (the gateway's limits,
/// `Idempotency-Key` on POSTs, the backend's refusals and failures as 4xx/5xx), so every write
/// documents the same statuses.
public struct WriteDocumentation: Sendable {
    /// The success answer: its status, what it means, and its body (nil: none, as a 204 has).
    public struct Success: Sendable {
        public var status: Int
        public var description: String
        /// Nil for an answer without a body (204).
        public var schema: SchemaComponent?

        public init(_ status: Int, _ description: String, schema: SchemaComponent? = nil) {
            self.status = status
            self.description = description
            self.schema = schema
        }
    }

    public var operationID: String
    public var summary: String
    public var description: String
    /// The backend as people call it (`8alls`), in the errors' descriptions.
    public var backend: String
    /// The path's `{name}` parameters, in path order.
    public var parameters: [ParameterComponent]
    /// The JSON body it takes; nil when it takes none (then no 415 either).
    public var body: SchemaComponent?
    public var success: Success
    /// What makes a request a 400 `bad_request` (the message says which).
    public var badRequest: String
    /// The write's own 403 (besides `host_not_allowed` and the backend's 403).
    public var forbidden: String?
    /// The write's own 404 (besides `not_configured` and the backend's 404).
    public var notFound: String?
    /// The write's own 409 (besides the backend's 409).
    public var conflict: String?
    /// The backend's own rate limit, when it has a documented one; nil: the shared 429.
    public var rateLimit: String?
    /// The operations the success answer's values lead to (OpenAPI `links`).
    public var links: [WriteLink]

    public init(
        operationID: String, summary: String, description: String, backend: String,
        parameters: [ParameterComponent] = [], body: SchemaComponent? = nil, success: Success, badRequest: String,
        forbidden: String? = nil, notFound: String? = nil, conflict: String? = nil, rateLimit: String? = nil,
        links: [WriteLink] = []
    ) {
        self.operationID = operationID
        self.summary = summary
        self.description = description
        self.backend = backend
        self.parameters = parameters
        self.body = body
        self.success = success
        self.badRequest = badRequest
        self.forbidden = forbidden
        self.notFound = notFound
        self.conflict = conflict
        self.rateLimit = rateLimit
        self.links = links
    }
}
