import Foundation
import Model
import OpenAPIKit

/// FitIQ's part of `/v1/summary`: the day's nutrition. `kcal_remaining` is FitIQ's figure, or
/// the goal minus what was eaten when it gives none.
public struct FitIQSummaryPart: SummaryPart {
    struct Nutrition: Encodable {
        @Nullable var calories: Int?
        @Nullable var goalCalories: Int?
        @Nullable var remainingCalories: Int?
        @Nullable var proteinG: Double?
        @Nullable var carbsG: Double?
        @Nullable var fatG: Double?
        enum CodingKeys: String, CodingKey {
            case calories
            case goalCalories = "goal_calories"
            case remainingCalories = "remaining_calories"
            case proteinG = "protein_g"
            case carbsG = "carbs_g"
            case fatG = "fat_g"
        }
    }

    public var sections: [SummarySection] {
        // What a member eats is theirs: on the household's summary only when they share it.
        [
            SummarySection(
                name: "nutrition", operation: FitIQNutritionOperation().name, arguments: ["date": .date], optIn: true)
        ]
    }

    public var keySchemas: [String: JSONSchema] {
        [
            "kcal_today": .integer(nullable: true),
            "kcal_remaining": .integer(nullable: true),
            "nutrition": .closedObject([
                "calories": .integer(nullable: true),
                "goal_calories": .integer(nullable: true),
                "remaining_calories": .integer(nullable: true),
                "protein_g": .number(nullable: true),
                "carbs_g": .number(nullable: true),
                "fat_g": .number(nullable: true),
            ]),
        ]
    }

    public func summarize(_ input: SummaryInput) -> SummaryValues {
        let day = input.decode(NutritionSummary.self, "nutrition")
        let remaining = day.flatMap { day in day.remainingCalories ?? day.goalCalories.map { $0 - day.calories } }
        let nutrition = Nutrition(
            calories: day?.calories, goalCalories: day?.goalCalories, remainingCalories: remaining,
            proteinG: day?.proteinG, carbsG: day?.carbsG, fatG: day?.fatG)
        return SummaryValues(values: [
            "kcal_today": day.map { .number(Double($0.calories)) } ?? .null,
            "kcal_remaining": remaining.map { .number(Double($0)) } ?? .null,
            "nutrition": (try? JSONValue(encoding: nutrition)) ?? .null,
        ])
    }
}
