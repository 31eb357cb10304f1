import Foundation
import Model

/// The nutrition of a local day totalled by the gateway from the food logged within it (FitIQ's
/// own summary totals a UTC day): each log's servings times its food's values per serving, as
/// FitIQ totals them.
enum FitIQDayNutrition {
    /// A food's values per serving, and what names it (FitIQ's `FoodResponse`): the one decoder
    /// of a food, for the day's totals, the food logs' names and the food search alike.
    struct Food: Sendable, Equatable {
        var calories: Double
        var proteinG: Double
        var carbsG: Double
        var fatG: Double
        var id: String?
        var name: String?
        var brand: String?
        var servingSize: Double?
        var servingUnit: String?
        /// The user's own food (FitIQ sends its `user_id`), not the global library's.
        var isCustom = false

        init(
            calories: Double, proteinG: Double, carbsG: Double, fatG: Double, id: String? = nil, name: String? = nil,
            brand: String? = nil, servingSize: Double? = nil, servingUnit: String? = nil, isCustom: Bool = false
        ) {
            self.calories = calories
            self.proteinG = proteinG
            self.carbsG = carbsG
            self.fatG = fatG
            self.id = id
            self.name = name
            self.brand = brand
            self.servingSize = servingSize
            self.servingUnit = servingUnit
            self.isCustom = isCustom
        }

        /// FitIQ's Food (`calories`, `protein_g`, `carbs_g`, `fat_g` per serving of `serving_size`
        /// `serving_unit`; `name`, `brand`, `user_id`); nil without calories.
        init?(_ value: JSONValue) {
            guard let fields = LenientFields(value["food"] ?? value) else { return nil }
            func number(_ names: String...) -> Double? {
                for name in names {
                    if let value = fields.value(name)?.numberValue { return value }
                }
                return nil
            }
            guard let calories = number("calories") else { return nil }
            self.init(
                calories: calories, proteinG: number("protein_g", "protein") ?? 0,
                carbsG: number("carbs_g", "carbs") ?? 0, fatG: number("fat_g", "fat") ?? 0,
                id: fields.string("id")?.lowercased(), name: fields.string("name"), brand: fields.string("brand"),
                servingSize: number("serving_size"), servingUnit: fields.string("serving_unit"),
                isCustom: fields.string("user_id") != nil)
        }

        /// The food as the gateway answers it (`FitIQSchemas.food`): values per serving, and the
        /// `source` to send as `food_source` when logging it — `barcode` when it was found by its
        /// barcode, else `custom` for the user's own food and `database` for the library's.
        func answer(foundByBarcode: Bool = false) -> JSONValue {
            func round1(_ value: Double) -> JSONValue { .number((value * 10).rounded() / 10) }
            return .object([
                "id": id.map(JSONValue.string) ?? .null,
                "name": name.map(JSONValue.string) ?? .null,
                "brand": brand.map(JSONValue.string) ?? .null,
                "source": .string(foundByBarcode ? "barcode" : isCustom ? "custom" : "database"),
                "serving_size": servingSize.map(JSONValue.number) ?? .null,
                "serving_unit": servingUnit.map(JSONValue.string) ?? .null,
                "calories": round1(calories), "protein_g": round1(proteinG), "carbs_g": round1(carbsG),
                "fat_g": round1(fatG),
            ])
        }
    }

    /// More than any day's calories: a total beyond it is a broken answer.
    static let maximumCalories = 1_000_000_000

    /// `value` rounded to whole calories; nil when it is no day's figure (not finite, or beyond
    /// ``maximumCalories`` either way).
    static func calories(_ value: Double) -> Int? {
        guard value.isFinite, abs(value) <= Double(maximumCalories) else { return nil }
        return Int(value.rounded())
    }

    /// The day's goal from FitIQ's day summary (its `calorie_goal` is the account's, whichever
    /// day is asked); nil when it names none.
    static func goal(inSummary value: JSONValue) -> Int? {
        LenientFields(value["summary"] ?? value)?.int("calorie_goal", "goal_calories", "calorieGoal")
    }

    /// Totals `logs` (FitIQ's FoodLogs, already those of the day) with `foods`; a log whose food
    /// is not in `foods` counts as an item without calories. Values no day can have (a total
    /// that is not a number or beyond ``maximumCalories``, from servings or a food's values
    /// out of any range) are FitIQ's bad answer, not a trap.
    static func summary(date: LocalDate, logs: [JSONValue], foods: [String: Food], goal: Int?) throws
        -> NutritionSummary
    {
        struct Total {
            var calories = 0.0, protein = 0.0, carbs = 0.0, fat = 0.0, items = 0, known = 0
        }
        var total = Total()
        var meals: [String: Total] = [:]
        for log in logs {
            guard let fields = LenientFields(log) else { continue }
            let meal = fields.string("meal_type") ?? "snack"
            let servings: Double = {
                if let value = fields.value("servings")?.numberValue { return value }
                return 1
            }()
            var mealTotal = meals[meal, default: Total()]
            total.items += 1
            mealTotal.items += 1
            if let id = fields.string("food_id"), let food = foods[id.lowercased()] {
                total.calories += food.calories * servings
                total.protein += food.proteinG * servings
                total.carbs += food.carbsG * servings
                total.fat += food.fatG * servings
                total.known += 1
                mealTotal.calories += food.calories * servings
                mealTotal.known += 1
            }
            meals[meal] = mealTotal
        }
        func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        guard let calories = Self.calories(total.calories),
            [total.protein, total.carbs, total.fat].allSatisfy({ $0.isFinite })
        else {
            throw BackendError(
                .badResponse, backend: FitIQClient.backend,
                message: "FitIQ sent servings or food values beyond any day's nutrition")
        }
        func meal(_ name: String) -> NutritionSummary.Meal {
            guard let t = meals[name] else { return .init(calories: nil, items: 0) }
            return .init(calories: t.known > 0 ? Self.calories(t.calories) : nil, items: t.items)
        }
        let goal = goal.flatMap { $0 > 0 && $0 <= Self.maximumCalories ? $0 : nil }
        return NutritionSummary(
            date: date.description, calories: calories, proteinG: round1(total.protein), carbsG: round1(total.carbs),
            fatG: round1(total.fat), goalCalories: goal, remainingCalories: goal.map { $0 - calories },
            meals: .init(
                breakfast: meal("breakfast"), lunch: meal("lunch"), dinner: meal("dinner"), snack: meal("snack"))
        )
    }
}
