import Foundation
import Model

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
        [SummarySection(name: "nutrition", operation: FitIQNutritionOperation().name, arguments: ["date": .date])]
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
