import Foundation
import Model

/// `POST /v1/food-logs` → 201 `{"food_log", "date"}` (`FitIQFoodLogs`; `date` is the log's
/// local day); the cached nutrition and food logs of every local day the log touches are now
/// wrong.
public struct FitIQLogFoodWrite: BackendWrite {
    public init() {}

    public var method: WriteMethod { .post }
    public var path: String { "/v1/food-logs" }
    public var fields: Set<String>? { ["food_id", "food_source", "meal_type", "servings", "logged_at", "notes"] }

    struct Answer: Encodable {
        var foodLog: JSONValue
        var date: String
        enum CodingKeys: String, CodingKey {
            case foodLog = "food_log"
            case date
        }
    }

    /// Every field checked before anything else happens (an `Idempotency-Key` reserved, FitIQ
    /// called): a body FitIQ would refuse is the gateway's 400.
    public func check(_ request: WriteRequest) throws {
        try request.decode(FoodLogInput.self).validate()
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        let input = try request.decode(FoodLogInput.self)
        let (log, days) = try await FitIQFoodLogs.log(input, context: context)
        return try WriteResult(
            status: 201, encoding: Answer(foodLog: log, date: days[0].description),
            invalidations: [FitIQNutritionOperation().name, FitIQFoodLogsOperation().name].map { operation in
                CacheInvalidation(operation) { arguments in
                    arguments["date"]?.date.map { days.contains($0) } ?? true
                }
            })
    }

    /// Every cached day's nutrition and food logs, after a log whose outcome is unknown (the day
    /// FitIQ would store it on is its own clock's when no `logged_at` was sent).
    public func invalidationsIfItMayHaveHappened(_ request: WriteRequest) -> [CacheInvalidation] {
        [FitIQNutritionOperation().name, FitIQFoodLogsOperation().name].map(CacheInvalidation.all)
    }
}
