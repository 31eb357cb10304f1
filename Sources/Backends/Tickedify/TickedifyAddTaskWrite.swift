import Foundation
import Model

/// `POST /v1/tasks {"title"}` → 201 `{"task"}` in the Tickedify inbox (`TickedifyInbox`); the
/// cached inbox list and the counts are now wrong.
public struct TickedifyAddTaskWrite: BackendWrite {
    public init() {}

    public var method: WriteMethod { .post }
    public var path: String { "/v1/tasks" }
    public var fields: Set<String>? { ["title"] }

    public func check(_ request: WriteRequest) throws {
        _ = try TickedifyInbox.checkedTitle(request.string("title"))
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        let title = try request.string("title")
        let id = try await TickedifyInbox.add(title: title, context: context)
        return try WriteResult(
            status: 201,
            encoding: [
                "task": ["id": id, "title": title.trimmingCharacters(in: .whitespacesAndNewlines), "list": "inbox"]
            ],
            invalidations: invalidationsIfItMayHaveHappened(request))
    }

    /// The inbox and the counts, also after an add whose outcome is unknown.
    public func invalidationsIfItMayHaveHappened(_ request: WriteRequest) -> [CacheInvalidation] {
        [
            CacheInvalidation(TickedifyListOperation().name) { $0["list"]?.string == "inbox" },
            .all(TickedifyCountsOperation().name),
        ]
    }
}
