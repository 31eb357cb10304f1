import Foundation
import Model

/// `POST /v1/captures {"url" | "content", "title"?, "tags"?, "content_type"?}` → 202
/// `{"capture"}`: PRSNL saves it in the background (`PRSNLCaptures`). The timeline, search and
/// tags are now wrong.
public struct PRSNLCaptureWrite: BackendWrite {
    public init() {}

    public var method: WriteMethod { .post }
    public var path: String { "/v1/captures" }
    public var fields: Set<String>? { ["url", "content", "title", "tags", "content_type"] }

    public func check(_ request: WriteRequest) throws {
        _ = try request.decode(CaptureInput.self)
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        let input = try request.decode(CaptureInput.self)
        try input.validate()
        let answer = try await PRSNLCaptures.capture(input, context: context)
        return try WriteResult(
            status: 202, encoding: ["capture": answer], invalidations: invalidationsIfItMayHaveHappened(request))
    }

    /// The timeline, search results and tags, also after a capture whose outcome is unknown.
    public func invalidationsIfItMayHaveHappened(_ request: WriteRequest) -> [CacheInvalidation] {
        [
            PRSNLTimelineOperation().name, PRSNLTimelineCursorOperation().name, PRSNLSearchOperation().name,
            PRSNLTagsOperation().name,
        ].map(CacheInvalidation.all)
    }
}
