import Foundation
import Model

/// The task endpoints (`TickedifyTaskWrites`):
/// - `POST /v1/tasks/{id}/complete` → 200 `{"task": {"id", "completed_at"}, "next_task_id", "next_task_date"}`;
/// - `POST /v1/tasks/{id}/reopen` → 200 `{"task": {"id", "list": "inbox"}}`;
/// - `PUT /v1/plan/items/{id} {"hour", "position"?}` → 200 `{"plan_item": {"id", "hour", "position"}}`;
/// - `DELETE /v1/plan/items/{id}?date=` → 204, only for a slot in this profile's plan of that
///   day (default: the household's today); 404 and nothing sent otherwise.
///
/// What each makes wrong in the cache: completing drops every task list, the counts, every
/// cached day plan (Tickedify deletes all planning items of the task, on whatever day) and the
/// completed lists; reopening drops the inbox, the counts and the completed lists (the plan is
/// not restored, so it stays right); moving or removing a slot drops every cached day plan
/// (the item's day is not known without reading the plans).
public struct TickedifyTaskWrite: BackendWrite {
    public enum Kind: Sendable, CaseIterable { case complete, reopen, replan, remove }

    public let kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
    }

    public var method: WriteMethod {
        switch kind {
        case .complete, .reopen: .post
        case .replan: .put
        case .remove: .delete
        }
    }

    public var path: String {
        switch kind {
        case .complete: "/v1/tasks/{id}/complete"
        case .reopen: "/v1/tasks/{id}/reopen"
        case .replan, .remove: "/v1/plan/items/{id}"
        }
    }

    /// Complete and reopen take no fields (an empty body or `{}`); a move takes `PlanMove`'s.
    public var fields: Set<String>? {
        switch kind {
        case .complete, .reopen: []
        case .replan: PlanMove.fields
        case .remove: nil
        }
    }

    public func check(_ request: WriteRequest) throws {
        try TickedifyTaskWrites.checkID(request.parameter("id"), name: "id")
        if kind == .replan { _ = try PlanMove(json: request.body) }
        if kind == .remove { _ = try Self.requestedDay(request) }
    }

    /// The day whose plan holds the slot, as `?date=YYYY-MM-DD` gives it (nil: not given, so
    /// today); anything else is a 400.
    static func requestedDay(_ request: WriteRequest) throws(WriteRefusal) -> LocalDate? {
        guard let text = request.query["date"] else { return nil }
        guard let day = LocalDate(text) else { throw .badInput("date must be a day as YYYY-MM-DD") }
        return day
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        let id = try request.parameter("id")
        switch kind {
        case .complete:
            let done = try await TickedifyTaskWrites.complete(id: id, context: context)
            return try WriteResult(
                status: 200,
                encoding: Completed(
                    task: .init(id: done.id, completedAt: done.completedAt), nextTaskID: done.nextTaskID,
                    nextTaskDate: done.nextDate?.description),
                invalidations: [
                    .all(TickedifyListOperation().name), .all(TickedifyCountsOperation().name),
                    .all(TickedifyDailyPlanOperation().name), .all(TickedifyCompletedOperation().name),
                ])
        case .reopen:
            try await TickedifyTaskWrites.reopen(id: id, context: context)
            return try WriteResult(
                status: 200, encoding: ["task": ["id": id, "list": "inbox"]],
                invalidations: [
                    CacheInvalidation(TickedifyListOperation().name) { $0["list"]?.string == "inbox" },
                    .all(TickedifyCountsOperation().name), .all(TickedifyCompletedOperation().name),
                ])
        case .replan:
            let move = try PlanMove(json: request.body)
            try await TickedifyTaskWrites.replan(itemID: id, to: move, context: context)
            return try WriteResult(
                status: 200, encoding: Replanned(planItem: .init(id: id, hour: move.hour, position: move.position)),
                invalidations: [.all(TickedifyDailyPlanOperation().name)])
        case .remove:
            let day = try Self.requestedDay(request) ?? context.clock.today
            try await TickedifyTaskWrites.remove(itemID: id, day: day, context: context)
            return WriteResult(status: 204, body: Data(), invalidations: [.all(TickedifyDailyPlanOperation().name)])
        }
    }

    struct Completed: Encodable {
        struct Item: Encodable {
            var id: String
            var completedAt: String
            enum CodingKeys: String, CodingKey {
                case id
                case completedAt = "completed_at"
            }
        }
        var task: Item
        @Nullable var nextTaskID: String?
        @Nullable var nextTaskDate: String?
        enum CodingKeys: String, CodingKey {
            case task
            case nextTaskID = "next_task_id"
            case nextTaskDate = "next_task_date"
        }
    }

    struct Replanned: Encodable {
        struct Item: Encodable {
            var id: String
            var hour: Int
            @Nullable var position: Int?
        }
        var planItem: Item
        enum CodingKeys: String, CodingKey {
            case planItem = "plan_item"
        }
    }
}
