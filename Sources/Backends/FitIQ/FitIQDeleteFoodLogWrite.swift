import Foundation
import Model

/// `DELETE /v1/food-logs/{id}` → FitIQ's `DELETE /api/v1/food-logs/{id}` → 204 without a body.
/// FitIQ's 404 is `not_found` (no such log), its 403 `upstream_rejected` 403 (another user's
/// log) — except for a log this gateway deleted, or may have deleted (a timeout, a 5xx), within
/// the day: a DELETE sent again for it finds it gone and answers 204 (`FitIQDeletedLogs`). The
/// id is a UUID (FitIQ's ids are), checked before any call.
///
/// What it makes wrong: the cached nutrition and food logs of the log's local day. FitIQ has no
/// call that reads one log, so the day is not known without listing logs first; instead every
/// cached `fitiq.nutrition` and `fitiq.food_logs` entry of the profile is dropped — a handful of
/// days at most, each refetched in one or two calls when next asked.
public struct FitIQDeleteFoodLogWrite: BackendWrite {
    public init() {}

    public var method: WriteMethod { .delete }
    public var path: String { "/v1/food-logs/{id}" }
    public var fields: Set<String>? { nil }

    public func check(_ request: WriteRequest) throws {
        _ = try Self.id(request)
    }

    static func id(_ request: WriteRequest) throws(WriteRefusal) -> String {
        let id = try request.parameter("id")
        guard UUID(uuidString: id) != nil else { throw .badInput("id must be a food log's id (a UUID)") }
        return id.lowercased()
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        let id = try Self.id(request)
        let client = try FitIQClient.make(context)
        let deleted = FitIQDeletedLogs.shared(context.sessions, scope: FitIQClient.scope(client.settings))
        do {
            try await client.delete("/api/v1/food-logs/" + QueryString.pathSegment(id))
            await deleted.remember(id)
        } catch let error as BackendError where error.kind == .rejected && error.status == 404 {
            // Gone: by this gateway's earlier DELETE, whose answer the client may not have seen.
            guard await deleted.wasDeleted(id) else {
                throw BackendError(
                    .notFound, backend: FitIQClient.backend, message: "FitIQ has no food log \(id)", status: 404)
            }
        } catch  where BackendError.mayHaveBeenDone(error) {
            await deleted.remember(id)
            throw error
        }
        return WriteResult(
            status: 204, body: Data(),
            invalidations: invalidationsIfItMayHaveHappened(request))
    }

    /// Every cached day's nutrition and food logs, also after a delete whose outcome is unknown.
    public func invalidationsIfItMayHaveHappened(_ request: WriteRequest) -> [CacheInvalidation] {
        [FitIQNutritionOperation().name, FitIQFoodLogsOperation().name].map(CacheInvalidation.all)
    }
}
