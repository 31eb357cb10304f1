/// FitIQ's day: totals against the goal, per meal.
public struct NutritionSummary: Sendable, Hashable, Codable {
    public struct Meal: Sendable, Hashable, Codable {
        /// Nil when the backend reports only how many items were logged.
        public var calories: Int?
        public var items: Int

        public init(calories: Int?, items: Int) {
            self.calories = calories
            self.items = items
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(calories, forKey: .calories)
            try container.encode(items, forKey: .items)
        }
    }

    public struct Meals: Sendable, Hashable, Codable {
        public var breakfast: Meal
        public var lunch: Meal
        public var dinner: Meal
        public var snack: Meal

        public init(breakfast: Meal, lunch: Meal, dinner: Meal, snack: Meal) {
            self.breakfast = breakfast
            self.lunch = lunch
            self.dinner = dinner
            self.snack = snack
        }
    }

    public var date: String
    public var calories: Int
    public var proteinG: Double
    public var carbsG: Double
    public var fatG: Double
    public var goalCalories: Int?
    public var remainingCalories: Int?
    public var meals: Meals

    public init(
        date: String, calories: Int, proteinG: Double, carbsG: Double, fatG: Double, goalCalories: Int?,
        remainingCalories: Int?, meals: Meals
    ) {
        self.date = date
        self.calories = calories
        self.proteinG = proteinG
        self.carbsG = carbsG
        self.fatG = fatG
        self.goalCalories = goalCalories
        self.remainingCalories = remainingCalories
        self.meals = meals
    }

    enum CodingKeys: String, CodingKey {
        case date, calories
        case proteinG = "protein_g"
        case carbsG = "carbs_g"
        case fatG = "fat_g"
        case goalCalories = "goal_calories"
        case remainingCalories = "remaining_calories"
        case meals
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(calories, forKey: .calories)
        try container.encode(proteinG, forKey: .proteinG)
        try container.encode(carbsG, forKey: .carbsG)
        try container.encode(fatG, forKey: .fatG)
        try container.encode(goalCalories, forKey: .goalCalories)
        try container.encode(remainingCalories, forKey: .remainingCalories)
        try container.encode(meals, forKey: .meals)
    }
}
