import Foundation
import Model

/// One item of a meal log (swagger `MealLogItemResponse`).
struct FitIQMealLogItem: Sendable, Equatable {
    var id: String
    var foodID: String?
    var userFoodID: String?
    var name: String
    var quantity: Double
    var unit: String
    var calories: Int
    var proteinG: Double
    var carbsG: Double
    var fatG: Double
    var fiberG: Double?
    var sugarG: Double?
    /// Set for items FitIQ's AI parsed (0–1).
    var confidence: Double?
    var createdAt: Int64

    func json(mealLogID: String, order: Int) -> JSONValue {
        var o: JSONObject = ["id": .string(id), "meal_log_id": .string(mealLogID)]
        if let foodID { o.append("food_id", .string(foodID)) }
        if let userFoodID { o.append("user_food_id", .string(userFoodID)) }
        o.append("food_name", .string(name))
        o.append("quantity", FitIQFormat.number(quantity))
        o.append("unit", .string(unit))
        o.append("calories", .int(calories))
        o.append("protein_g", FitIQFormat.number(proteinG))
        o.append("carbs_g", FitIQFormat.number(carbsG))
        o.append("fat_g", FitIQFormat.number(fatG))
        if let fiberG { o.append("fiber_g", FitIQFormat.number(fiberG)) }
        if let sugarG { o.append("sugar_g", FitIQFormat.number(sugarG)) }
        if let confidence { o.append("confidence_score", FitIQFormat.number(confidence)) }
        o.append("order_index", .int(order))
        o.append("created_at", .string(FitIQFormat.time(createdAt)))
        return .object(o)
    }
}

/// A meal log (swagger `MealLogResponse` / `MealLogWithItemsResponse`): logged in words
/// (`processing` until the simulated AI has parsed it, then `completed` or `failed`) or item by
/// item (`manual`, totals at once).
struct FitIQMealLog: Sendable, Equatable, FitIQOwnedRow {
    enum Status: String, Sendable {
        case processing, completed, failed, manual
    }

    var id: String
    var userID: String
    var rawInput: String?
    var mealType: String
    var status: Status
    var loggedAt: Int64
    var items: [FitIQMealLogItem] = []
    var processingStartedAt: Int64?
    var processingCompletedAt: Int64?
    var errorMessage: String?
    /// When a `processing` meal is parsed (the simulator's clock, microseconds).
    var completesAt: Int64?
    var createdAt: Int64
    var updatedAt: Int64
    var sequence = 0

    /// Whether its totals are set (after parsing, or at once for a manual meal).
    var hasTotals: Bool { status == .completed || status == .manual }

    /// swagger `MealLogResponse` as the list answers it (no items); `omitempty` leaves unset
    /// fields out, the totals of a meal without them included. `estimated_completion_seconds`
    /// while processing, counted from `now`.
    func json(now: Int64) -> JSONValue {
        var o: JSONObject = ["id": .string(id), "user_id": .string(userID)]
        if let rawInput { o.append("raw_input", .string(rawInput)) }
        o.append("meal_type", .string(mealType))
        o.append("status", .string(status.rawValue))
        o.append("logged_at", .string(FitIQFormat.time(loggedAt)))
        if let processingStartedAt { o.append("processing_started_at", .string(FitIQFormat.time(processingStartedAt))) }
        if let processingCompletedAt {
            o.append("processing_completed_at", .string(FitIQFormat.time(processingCompletedAt)))
        }
        if let errorMessage { o.append("error_message", .string(errorMessage)) }
        if hasTotals {
            let r = FitIQFormat.round1
            o.append("total_calories", .int(items.map(\.calories).reduce(0, +)))
            o.append("total_protein_g", FitIQFormat.number(r(items.map(\.proteinG).reduce(0, +))))
            o.append("total_carbs_g", FitIQFormat.number(r(items.map(\.carbsG).reduce(0, +))))
            o.append("total_fat_g", FitIQFormat.number(r(items.map(\.fatG).reduce(0, +))))
            let fiber = items.compactMap(\.fiberG)
            if !fiber.isEmpty { o.append("total_fiber_g", FitIQFormat.number(r(fiber.reduce(0, +)))) }
            let sugar = items.compactMap(\.sugarG)
            if !sugar.isEmpty { o.append("total_sugar_g", FitIQFormat.number(r(sugar.reduce(0, +)))) }
        }
        if status == .processing, let completesAt {
            let remaining = max(1, (completesAt - now + Civil.microsPerSecond - 1) / Civil.microsPerSecond)
            o.append("estimated_completion_seconds", .int(Int(remaining)))
        }
        o.append("created_at", .string(FitIQFormat.time(createdAt)))
        o.append("updated_at", .string(FitIQFormat.time(updatedAt)))
        return .object(o)
    }

    /// swagger `MealLogWithItemsResponse`: the list form with `items`.
    func jsonWithItems(now: Int64) -> JSONValue {
        guard case .object(var o) = json(now: now) else { return json(now: now) }
        o.append("items", .array(items.enumerated().map { $1.json(mealLogID: id, order: $0) }))
        return .object(o)
    }

    /// Parses a `processing` meal whose time has come (`FitIQMealParser`): `completed` with its
    /// items, or `failed` when no food was recognised.
    mutating func settle(now: Int64, ids: inout SeedRandom) {
        guard status == .processing, let completesAt, completesAt <= now else { return }
        let parsed = FitIQMealParser.items(in: rawInput ?? "")
        processingCompletedAt = completesAt
        updatedAt = completesAt
        if parsed.isEmpty {
            status = .failed
            errorMessage = "could not identify any food items in the description"
            return
        }
        status = .completed
        items = parsed.map { item in
            FitIQMealLogItem(
                id: ids.uuid(), name: item.name, quantity: item.quantity, unit: item.unit,
                calories: Int((item.calories * item.quantity).rounded()),
                proteinG: FitIQFormat.round1(item.proteinG * item.quantity),
                carbsG: FitIQFormat.round1(item.carbsG * item.quantity),
                fatG: FitIQFormat.round1(item.fatG * item.quantity),
                confidence: item.confidence, createdAt: completesAt)
        }
    }
}
