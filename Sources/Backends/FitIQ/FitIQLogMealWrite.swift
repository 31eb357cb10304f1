import Foundation
import Model

/// `POST /v1/meals` → 201 `{"meal", "date"}` (`FitIQMeals`; `date` is the meal's local day); the
/// cached nutrition and meal logs of that day are now wrong.
public struct FitIQLogMealWrite: BackendWrite {
    public init() {}

    public var method: WriteMethod { .post }
    public var path: String { "/v1/meals" }
    public var fields: Set<String>? { ["text", "meal_type", "logged_at"] }

    struct Answer: Encodable {
        var meal: JSONValue
        var date: String
    }

    /// Every field checked before an `Idempotency-Key` is reserved or FitIQ is called.
    public func check(_ request: WriteRequest) throws {
        try request.decode(MealInput.self).validate()
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        let input = try request.decode(MealInput.self)
        let (meal, day) = try await FitIQMeals.log(input, context: context)
        return try WriteResult(
            status: 201, encoding: Answer(meal: meal, date: day.description),
            invalidations: [FitIQNutritionOperation().name, FitIQMealLogsOperation().name].map { operation in
                CacheInvalidation(operation) { arguments in
                    arguments["date"]?.date.map { $0 == day } ?? true
                }
            })
    }
}
