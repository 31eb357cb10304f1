import Model
import OpenAPIKit

/// FitIQ's schemas in /openapi.json: its records, its operations' bodies, its write and its
/// summary keys.
public enum FitIQSchemas {
    static let passedThrough = "Passed through from FitIQ as sent (normally a number)."

    /// A food log entry (`FitIQRecord.foodLog`).
    public static let foodLog = SchemaComponent(
        "FoodLog",
        schema: .closedObject(
            [
                "id": .string,
                "meal_type": .string(nullable: true),
                "food_id": .string(nullable: true),
                "name": .string(
                    nullable: true, description: "The food's name; null when FitIQ does not find the food."),
                "servings": .number(nullable: true, description: passedThrough),
                "calories": .number(
                    nullable: true,
                    description: "The food's calories per serving × servings, rounded; null when the food is unknown."),
                "logged_at": .string(format: .dateTime, nullable: true),
                "notes": .string(nullable: true),
            ], description: "One food log entry from FitIQ."))

    /// The `{id}` of `DELETE /v1/food-logs/{id}`.
    public static let foodLogID = ParameterComponent.path(
        "FoodLogID", name: "id", description: "The FitIQ food log's id (a UUID).", schema: .string(format: .uuid))

    /// A food of FitIQ's library or the user's own (`FitIQDayNutrition.Food.answer`).
    public static let food = SchemaComponent(
        "Food",
        schema: .closedObject(
            [
                "id": .string,
                "name": .string(nullable: true),
                "brand": .string(nullable: true),
                "source": .enumeration(
                    FoodLogInput.foodSources,
                    description: "The food_source to send with POST /v1/food-logs when logging this food."),
                "serving_size": .number(nullable: true, description: "How much one serving is, in serving_unit."),
                "serving_unit": .string(nullable: true),
                "barcode": .string(
                    nullable: true,
                    description: "Its barcode, when FitIQ has one: GET /v1/foods/barcode/{code} finds it."),
                "calories": .number(description: "Per serving."),
                "protein_g": .number(description: "Per serving."),
                "carbs_g": .number(description: "Per serving."),
                "fat_g": .number(description: "Per serving."),
            ], description: "A food from FitIQ; its values are per serving."))

    /// Body of `fitiq.food_search`.
    public static let foodList = SchemaComponent(
        "FoodList", uses: [food],
        schema: .array(description: "Body of fitiq.food_search: the foods found.", items: food.reference))

    /// A workout (`FitIQRecord.workout`).
    public static let workout = SchemaComponent(
        "Workout",
        schema: .closedObject(
            [
                "id": .string,
                "activity_type": .string(nullable: true),
                "title": .string(nullable: true),
                "started_at": .string(format: .dateTime, nullable: true),
                "ended_at": .string(format: .dateTime, nullable: true),
                "duration_minutes": .number(nullable: true, description: passedThrough),
                "calories_burned": .number(nullable: true, description: passedThrough),
                "distance_meters": .number(nullable: true, description: passedThrough),
            ], description: "A workout from FitIQ."))

    /// A sleep session (`FitIQRecord.sleep`).
    public static let sleepSession = SchemaComponent(
        "SleepSession",
        schema: .closedObject(
            [
                "id": .string,
                "start": .string(format: .dateTime, nullable: true),
                "end": .string(format: .dateTime, nullable: true),
                "total_sleep_minutes": .number(nullable: true, description: passedThrough),
                "time_in_bed_minutes": .number(nullable: true, description: passedThrough),
                "efficiency_percent": .number(nullable: true, description: passedThrough),
            ], description: "A sleep session from FitIQ."))

    /// Body of `fitiq.food_logs`.
    public static let foodLogList = SchemaComponent(
        "FoodLogList", uses: [foodLog],
        schema: .array(description: "Body of fitiq.food_logs: the food logged on the day.", items: foodLog.reference))

    /// Body of `fitiq.workouts`.
    public static let workoutList = SchemaComponent(
        "WorkoutList", uses: [workout],
        schema: .array(description: "Body of fitiq.workouts.", items: workout.reference))

    /// Body of `fitiq.sleep`.
    public static let sleepSessionList = SchemaComponent(
        "SleepSessionList", uses: [sleepSession],
        schema: .array(description: "Body of fitiq.sleep.", items: sleepSession.reference))

    /// Body of `POST /v1/food-logs` (`FoodLogInput`).
    public static let newFoodLog = SchemaComponent(
        "NewFoodLog",
        schema: .closedObject(
            [
                "food_id": .text(
                    min: 36, max: 36, format: .uuid, pattern: FoodLogInput.foodIDPattern,
                    description:
                        "The id (a UUID) of a food of FitIQ's catalog or the user's own; another text is a 400, an unknown food FitIQ's 404."
                ),
                "food_source": .enumeration(FoodLogInput.foodSources),
                "meal_type": .enumeration(FoodLogInput.mealTypes),
                "servings": .number(
                    maximum: (FoodLogInput.maximumServings, exclusive: false),
                    minimum: (FoodLogInput.minimumServings, exclusive: false)),
                "logged_at": .text(
                    max: 40, format: .dateTime, description: "ISO-8601 with an offset or Z; default: now."),
                "notes": .text(max: FoodLogInput.maximumNotesLength),
            ], required: ["food_id", "food_source", "meal_type", "servings"],
            description: "Body of POST /v1/food-logs."))

    /// Answer of `POST /v1/food-logs`.
    public static let foodLogCreated = SchemaComponent(
        "FoodLogCreated", uses: [foodLog],
        schema: .closedObject(
            [
                "food_log": foodLog.reference,
                "date": .string(format: .date, description: "The local day the entry counts for."),
            ], description: "Answer of POST /v1/food-logs."))

    /// A meal log (`FitIQMealLog.answer`).
    public static let mealLog = SchemaComponent(
        "MealLog",
        schema: .closedObject(
            [
                "id": .string,
                "meal_type": .string(nullable: true),
                "status": .string(
                    nullable: true,
                    description:
                        "FitIQ's: processing (its nutrients are being worked out), completed, failed (none could be "
                        + "worked out) or manual (entered item by item)."),
                "description": .string(nullable: true, description: "What was eaten, in the words it was logged with."),
                "calories": .number(nullable: true, description: "The meal's total; null until FitIQ has it."),
                "protein_g": .number(nullable: true),
                "carbs_g": .number(nullable: true),
                "fat_g": .number(nullable: true),
                "logged_at": .string(format: .dateTime, nullable: true),
                "error": .string(nullable: true, description: "FitIQ's reason when the meal failed."),
            ], description: "One meal logged in FitIQ (in words, from a photo, or item by item)."))

    /// Body of `fitiq.meal_logs`.
    public static let mealLogList = SchemaComponent(
        "MealLogList", uses: [mealLog],
        schema: .array(
            description: "Body of fitiq.meal_logs: the meals logged on the day, earliest first.",
            items: mealLog.reference))

    /// Body of `POST /v1/meals` (`MealInput`).
    public static let newMeal = SchemaComponent(
        "NewMeal",
        schema: .closedObject(
            [
                "text": .text(
                    min: 1, max: MealInput.maximumTextLength,
                    description: "What was eaten, in words (\"two eggs and toast\"); FitIQ works out the nutrients."),
                "meal_type": .enumeration(
                    FoodLogInput.mealTypes,
                    description:
                        "Default: by the local time eaten, as the FitIQ app does (5–9 breakfast, 12–15 lunch, 18–21 "
                        + "dinner, otherwise snack)."),
                "logged_at": .text(
                    max: 40, format: .dateTime,
                    description: "When it was eaten, ISO-8601 with an offset or Z; default: now."),
            ], required: ["text"], description: "Body of POST /v1/meals."))

    /// Answer of `POST /v1/meals`.
    public static let mealCreated = SchemaComponent(
        "MealCreated", uses: [mealLog],
        schema: .closedObject(
            [
                "meal": mealLog.reference,
                "date": .string(format: .date, description: "The local day the meal counts for."),
            ], description: "Answer of POST /v1/meals: the meal, normally still processing."))
}
