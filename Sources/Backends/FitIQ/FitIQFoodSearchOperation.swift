import Foundation
import Model

/// `fitiq.food_search`: foods of FitIQ's global library whose name matches `q`
/// (`GET /api/v1/foods/search?q=&limit=`: `q` 1–100 characters here, `limit` 1–100, default
/// 10), each as `FitIQDayNutrition.Food.answer` (values per serving). The foods found join the
/// food catalog, so logging one costs no extra call.
public struct FitIQFoodSearchOperation: FitIQOperation {
    public static let maximumQueryLength = 100
    /// FitIQ's own bound on `limit`.
    public static let maximumLimit = 100

    public init() {}
    public var name: String { "fitiq.food_search" }
    public var bodySchema: SchemaComponent { FitIQSchemas.foodList }
    /// The library changes rarely and a search is typed again while a meal is logged.
    public var defaultTTL: TimeInterval { 600 }
    public var arguments: [OperationArgument] {
        [OperationArgument("q", .string, required: true), OperationArgument("limit", .int)]
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        guard let query = arguments["q"]?.string?.trimmingCharacters(in: .whitespaces), !query.isEmpty else {
            throw ErrorDetail.badParameter("q is required")
        }
        guard query.count <= Self.maximumQueryLength else {
            throw ErrorDetail.badParameter("q is at most \(Self.maximumQueryLength) characters")
        }
        let limit = arguments["limit"]?.int ?? 10
        guard (1...Self.maximumLimit).contains(limit) else {
            throw ErrorDetail.badParameter("limit must be between 1 and \(Self.maximumLimit)")
        }
        return ["q": .string(query), "limit": .int(limit)]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try FitIQClient.make(context)
        let value = try await client.get(
            "/api/v1/foods/search",
            query: [("q", arguments["q"]?.string ?? ""), ("limit", String(arguments["limit"]?.int ?? 10))])
        let foods = Self.foods(value)
        await FitIQFoodCatalog.shared(context.sessions, baseURL: client.settings.endpoint.baseURL).remember(foods)
        return try OperationOutput(encoding: foods.map { $0.answer() })
    }

    /// The foods with an id in a `/api/v1/foods/search` answer.
    static func foods(_ value: JSONValue) -> [FitIQDayNutrition.Food] {
        (LenientList.items(in: value, keys: ["foods", "data"]) ?? []).compactMap {
            FitIQDayNutrition.Food($0)
        }.filter { $0.id != nil }
    }
}
