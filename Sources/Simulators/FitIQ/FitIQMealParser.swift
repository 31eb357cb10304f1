import Foundation

/// The simulator's stand-in for FitIQ's AI meal parsing (the real server asks OpenAI): a
/// sentence is split into parts ("two eggs and toast", "2 eggs, toast with butter"), each part's
/// leading amount read (digits, `a`/`an`, `half`, number words up to twelve) and its food
/// recognised by a word in a small table of common foods with values per portion. Deterministic,
/// so tests know what a sentence gives; a sentence without any known food fails, as the real
/// server's parse can. What the real AI answers is not simulated (docs/backends/fitiq.md).
enum FitIQMealParser {
    struct Portion: Sendable, Equatable {
        var name: String
        var unit: String
        var calories: Double
        var proteinG: Double
        var carbsG: Double
        var fatG: Double
    }

    struct Item: Sendable, Equatable {
        var name: String
        var quantity: Double
        var unit: String
        var calories: Double
        var proteinG: Double
        var carbsG: Double
        var fatG: Double
        var confidence: Double
    }

    /// Words (singular) → the food and its values per portion.
    static let table: [String: Portion] = [
        "egg": Portion(name: "Egg", unit: "large", calories: 78, proteinG: 6.3, carbsG: 0.6, fatG: 5.3),
        "toast": Portion(name: "Toast", unit: "slice", calories: 80, proteinG: 3, carbsG: 15, fatG: 1),
        "bread": Portion(name: "Bread", unit: "slice", calories: 80, proteinG: 3, carbsG: 15, fatG: 1),
        "butter": Portion(name: "Butter", unit: "tsp", calories: 34, proteinG: 0, carbsG: 0, fatG: 3.8),
        "apple": Portion(name: "Apple", unit: "medium", calories: 95, proteinG: 0.5, carbsG: 25, fatG: 0.3),
        "banana": Portion(name: "Banana", unit: "medium", calories: 105, proteinG: 1.3, carbsG: 27, fatG: 0.4),
        "almond": Portion(name: "Almonds", unit: "handful", calories: 164, proteinG: 6, carbsG: 6, fatG: 14),
        "coffee": Portion(name: "Coffee", unit: "cup", calories: 5, proteinG: 0.3, carbsG: 0, fatG: 0),
        "cappuccino": Portion(name: "Cappuccino", unit: "cup", calories: 110, proteinG: 6, carbsG: 9, fatG: 6),
        "milk": Portion(name: "Milk", unit: "glass", calories: 122, proteinG: 8, carbsG: 12, fatG: 4.8),
        "cheese": Portion(name: "Cheese", unit: "slice", calories: 113, proteinG: 7, carbsG: 0.4, fatG: 9),
        "rice": Portion(name: "Rice", unit: "cup", calories: 206, proteinG: 4.3, carbsG: 45, fatG: 0.4),
        "chicken": Portion(name: "Chicken breast", unit: "piece", calories: 165, proteinG: 31, carbsG: 0, fatG: 3.6),
        "salad": Portion(name: "Green salad", unit: "bowl", calories: 35, proteinG: 2, carbsG: 7, fatG: 0.3),
        "pasta": Portion(name: "Pasta", unit: "plate", calories: 350, proteinG: 12, carbsG: 70, fatG: 2),
        "pizza": Portion(name: "Pizza", unit: "slice", calories: 285, proteinG: 12, carbsG: 36, fatG: 10),
        "sandwich": Portion(name: "Sandwich", unit: "piece", calories: 300, proteinG: 14, carbsG: 35, fatG: 11),
        "soup": Portion(name: "Soup", unit: "bowl", calories: 120, proteinG: 4, carbsG: 16, fatG: 4),
        "yogurt": Portion(name: "Yogurt", unit: "cup", calories: 150, proteinG: 8, carbsG: 17, fatG: 6),
        "oatmeal": Portion(name: "Oatmeal", unit: "bowl", calories: 150, proteinG: 5, carbsG: 27, fatG: 3),
        "juice": Portion(name: "Orange juice", unit: "glass", calories: 112, proteinG: 1.7, carbsG: 26, fatG: 0.5),
        "stroopwafel": Portion(name: "Stroopwafel", unit: "piece", calories: 140, proteinG: 1, carbsG: 21, fatG: 6),
        "potato": Portion(name: "Potatoes", unit: "portion", calories: 160, proteinG: 4, carbsG: 37, fatG: 0.2),
        "salmon": Portion(name: "Salmon", unit: "fillet", calories: 280, proteinG: 30, carbsG: 0, fatG: 17),
    ]

    static let numberWords: [String: Double] = [
        "a": 1, "an": 1, "one": 1, "half": 0.5, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "some": 1,
    ]

    /// The items recognised in `text`, in order; one per part (a part's first known food).
    static func items(in text: String) -> [Item] {
        var parts = [text.lowercased()]
        for separator in [" and ", ",", " with ", "+", ";", "&"] {
            parts = parts.flatMap { $0.components(separatedBy: separator) }
        }
        return parts.compactMap(item)
    }

    static func item(_ part: String) -> Item? {
        let words = part.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "." }).map(String.init)
        guard !words.isEmpty else { return nil }
        var quantity = 1.0
        if let first = words.first {
            if let number = Double(first), number.isFinite, number > 0, number <= 100 {
                quantity = number
            } else if let number = numberWords[first] {
                quantity = number
            }
        }
        for word in words {
            let singular =
                word.hasSuffix("es") && table[String(word.dropLast(2))] != nil
                ? String(word.dropLast(2)) : word.hasSuffix("s") ? String(word.dropLast()) : word
            guard let portion = table[singular] ?? table[word] else { continue }
            return Item(
                name: portion.name, quantity: quantity, unit: portion.unit, calories: portion.calories,
                proteinG: portion.proteinG, carbsG: portion.carbsG, fatG: portion.fatG, confidence: 0.9)
        }
        return nil
    }
}
