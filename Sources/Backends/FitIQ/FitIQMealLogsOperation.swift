import Foundation
import Model

/// `fitiq.meal_logs`: the meals logged on a local day (FitIQ's meal logs: in words, from a photo
/// once confirmed, or item by item), each with its status — a meal FitIQ is still processing
/// has no nutrients yet, and the answer is then fresh for a few seconds only, so the next read
/// finds them.
public struct FitIQMealLogsOperation: FitIQDayOperation {
    public init() {}
    public var name: String { "fitiq.meal_logs" }
    public var bodySchema: SchemaComponent { FitIQSchemas.mealLogList }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let date = arguments["date"]?.date ?? context.today
        let window = FitIQDayWindow(day: date, zone: context.timeZone)
        let client = try FitIQClient.make(context)
        let (meals, truncated) = try await FitIQMealLog.meals(in: window, client: client)
        return try OperationOutput(
            encoding: Self.answer(meals, zone: context.timeZone), issues: truncated.map { [$0] } ?? [],
            freshFor: FitIQMealLog.freshness(of: meals))
    }

    /// The meals as the section answers them, earliest first.
    static func answer(_ meals: [FitIQMealLog], zone: TimeZone) -> [JSONValue] {
        meals.sorted { lhs, rhs in
            let left = lhs.loggedAt.flatMap { LenientDate.parse($0) } ?? .distantPast
            let right = rhs.loggedAt.flatMap { LenientDate.parse($0) } ?? .distantPast
            return (left, lhs.id) < (right, rhs.id)
        }.map { $0.answer(zone: zone) }
    }
}
