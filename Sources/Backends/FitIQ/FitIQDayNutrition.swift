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
        /// Its barcode, when FitIQ has one (`GET /v1/foods/barcode/{code}` finds the food by it).
        var barcode: String?
        /// The user's own food (FitIQ sends its `user_id`), not the global library's.
        var isCustom = false

        init(
            calories: Double, proteinG: Double, carbsG: Double, fatG: Double, id: String? = nil, name: String? = nil,
            brand: String? = nil, servingSize: Double? = nil, servingUnit: String? = nil, barcode: String? = nil,
            isCustom: Bool = false
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
            self.barcode = barcode
            self.isCustom = isCustom
        }

        /// FitIQ's Food (`calories`, `protein_g`, `carbs_g`, `fat_g` per serving of `serving_size`
        /// `serving_unit`; `name`, `brand`, `barcode`, `user_id`); nil without calories.
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
                barcode: fields.string("barcode"), isCustom: fields.string("user_id") != nil)
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
                "barcode": barcode.map(JSONValue.string) ?? .null,
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

    /// A food log's own values, when FitIQ sends them with the log (the iOS guide's FoodLog
    /// carries `calories`, `protein_g`, `carbs_g`, `fat_g` — the entry's, not per serving; the
    /// published specification's carries none): then no food needs to be looked up for it.
    struct LogValues: Equatable {
        var calories: Double
        var proteinG: Double
        var carbsG: Double
        var fatG: Double

        init?(_ fields: LenientFields) {
            guard let calories = fields.value("calories", "total_calories")?.numberValue else { return nil }
            self.calories = calories
            proteinG = fields.value("protein_g", "protein")?.numberValue ?? 0
            carbsG = fields.value("carbs_g", "carbs")?.numberValue ?? 0
            fatG = fields.value("fat_g", "fat")?.numberValue ?? 0
        }

        init(food: Food, servings: Double) {
            calories = food.calories * servings
            proteinG = food.proteinG * servings
            carbsG = food.carbsG * servings
            fatG = food.fatG * servings
        }

        init(meal: FitIQMealLog) {
            calories = meal.calories ?? 0
            proteinG = meal.proteinG ?? 0
            carbsG = meal.carbsG ?? 0
            fatG = meal.fatG ?? 0
        }

        /// A log's values: its own, else its food's per serving × its servings; nil when neither
        /// is known.
        static func of(_ fields: LenientFields, foods: [String: Food]) -> LogValues? {
            if let own = LogValues(fields) { return own }
            guard let id = fields.string("food_id"), let food = foods[id.lowercased()] else { return nil }
            return LogValues(food: food, servings: fields.value("servings")?.numberValue ?? 1)
        }
    }

    /// The ids of the foods to look up for `logs`: those of the logs that carry no values of
    /// their own.
    static func foodIDsToLookUp(_ logs: [JSONValue]) -> Set<String> {
        Set(
            logs.compactMap { log in
                guard let fields = LenientFields(log), LogValues(fields) == nil else { return nil }
                return fields.string("food_id")?.lowercased()
            })
    }

    /// How many entries named in a message at most.
    static let namedEntries = 5

    /// Totals the day: `logs` (FitIQ's FoodLogs, already those of the day) with their own values
    /// or `foods`, and `meals` (FitIQ's meal logs of the day, a resource of its own: each counts
    /// once, with its own totals). What could not be counted is never dropped silently: a food
    /// log whose food is unknown and that carries no values, a meal still processing and one
    /// that failed are each named in an issue. Values no day can have (a total that is not a
    /// number or beyond ``maximumCalories``) are FitIQ's bad answer, not a trap.
    static func summary(
        date: LocalDate, logs: [JSONValue], foods: [String: Food], meals: [FitIQMealLog] = [], goal: Int?
    ) throws -> (summary: NutritionSummary, issues: [SectionIssue]) {
        struct Total {
            var calories = 0.0, protein = 0.0, carbs = 0.0, fat = 0.0, items = 0, known = 0
            mutating func add(_ values: LogValues?) {
                items += 1
                guard let values else { return }
                calories += values.calories
                protein += values.proteinG
                carbs += values.carbsG
                fat += values.fatG
                known += 1
            }
        }
        var total = Total()
        var perMeal: [String: Total] = [:]
        var uncounted: [String] = []
        for log in logs {
            guard let fields = LenientFields(log) else { continue }
            let meal = fields.string("meal_type") ?? "snack"
            let values = LogValues.of(fields, foods: foods)
            if values == nil { uncounted.append(fields.string("id") ?? "?") }
            total.add(values)
            perMeal[meal, default: Total()].add(values)
        }
        var processing: [FitIQMealLog] = []
        var failed: [FitIQMealLog] = []
        for meal in meals {
            let values = meal.counts ? LogValues(meal: meal) : nil
            if values == nil {
                if meal.isPending { processing.append(meal) } else { failed.append(meal) }
            }
            total.add(values)
            perMeal[meal.mealType ?? "snack", default: Total()].add(values)
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
            guard let t = perMeal[name] else { return .init(calories: nil, items: 0) }
            return .init(calories: t.known > 0 ? Self.calories(t.calories) : nil, items: t.items)
        }
        let goal = goal.flatMap { $0 > 0 && $0 <= Self.maximumCalories ? $0 : nil }
        let summary = NutritionSummary(
            date: date.description, calories: calories, proteinG: round1(total.protein), carbsG: round1(total.carbs),
            fatG: round1(total.fat), goalCalories: goal, remainingCalories: goal.map { $0 - calories },
            meals: .init(
                breakfast: meal("breakfast"), lunch: meal("lunch"), dinner: meal("dinner"), snack: meal("snack"))
        )
        return (summary, issues(uncountedLogs: uncounted, processing: processing, failed: failed))
    }

    /// What the day says it did not count.
    static func issues(uncountedLogs: [String], processing: [FitIQMealLog], failed: [FitIQMealLog])
        -> [SectionIssue]
    {
        func named(_ ids: [String]) -> String {
            let shown = ids.prefix(namedEntries).joined(separator: ", ")
            return ids.count > namedEntries ? "\(shown) and \(ids.count - namedEntries) more" : shown
        }
        func entries(_ ids: [String], _ one: String, _ many: String) -> String {
            (ids.count == 1 ? "1 \(one)" : "\(ids.count) \(many)") + " (\(named(ids)))"
        }
        let kinds: [(ids: [String], scope: String, code: String, message: ([String]) -> String)] = [
            (
                uncountedLogs, "food_logs", "food_not_found",
                {
                    "FitIQ did not find the food of \(entries($0, "food log", "food logs")), which carry no values of "
                        + "their own; their calories are not counted"
                }
            ),
            (
                processing.map(\.id), "meal_logs", "meal_processing",
                { "FitIQ is still working out the nutrients of \(entries($0, "meal", "meals")); not counted yet" }
            ),
            (
                failed.map(\.id), "meal_logs", "meal_failed",
                { "FitIQ could not work out the nutrients of \(entries($0, "meal", "meals")); not counted" }
            ),
        ]
        return kinds.filter { !$0.ids.isEmpty }.map {
            SectionIssue(scope: $0.scope, code: $0.code, message: $0.message($0.ids))
        }
    }
}
