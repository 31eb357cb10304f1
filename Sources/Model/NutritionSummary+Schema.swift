import OpenAPIKit

extension NutritionSummary {
    /// `NutritionMeal` in /openapi.json (`NutritionSummary.Meal`).
    public static let mealSchemaComponent = SchemaComponent(
        "NutritionMeal",
        schema: .closedObject([
            "calories": .integer(
                nullable: true, description: "Null when FitIQ reports only how many items were logged."),
            "items": .integer,
        ]))

    /// `NutritionMeals` in /openapi.json (`NutritionSummary.Meals`).
    public static let mealsSchemaComponent = SchemaComponent(
        "NutritionMeals", uses: [mealSchemaComponent],
        schema: .closedObject(
            Dictionary(
                uniqueKeysWithValues: ["breakfast", "lunch", "dinner", "snack"].map {
                    ($0, mealSchemaComponent.reference)
                })))

    /// `NutritionSummary` in /openapi.json: every field is always written (explicit `null`s).
    public static let schemaComponent = SchemaComponent(
        "NutritionSummary", uses: [mealsSchemaComponent],
        schema: .closedObject(
            [
                "date": .string(format: .date),
                "calories": .integer,
                "protein_g": .number,
                "carbs_g": .number,
                "fat_g": .number,
                "goal_calories": .integer(nullable: true),
                "remaining_calories": .integer(nullable: true),
                "meals": mealsSchemaComponent.reference,
            ], description: "FitIQ's day: totals against the goal, per meal. Body of fitiq.nutrition."))
}
