import Foundation
import Model

/// What a client may send to log a meal in words (`POST /v1/meals` → FitIQ's
/// `POST /api/v1/meal-logs/natural`), as the FitIQ app does: a sentence such as "two eggs and
/// toast", FitIQ works out the items and nutrients a few seconds later.
public struct MealInput: Sendable, Codable, Equatable {
    /// FitIQ's own bound on `raw_input` (its specification: 1 to 1,000 characters).
    public static let maximumTextLength = 1_000

    /// What was eaten, in words.
    public var text: String
    /// `breakfast`, `lunch`, `dinner` or `snack`; nil = by the local time it was eaten, as the
    /// FitIQ app preselects it.
    public var mealType: String?
    /// ISO-8601 with an offset; nil = now.
    public var loggedAt: String?

    public init(text: String, mealType: String? = nil, loggedAt: String? = nil) {
        self.text = text
        self.mealType = mealType
        self.loggedAt = loggedAt
    }

    enum CodingKeys: String, CodingKey {
        case text
        case mealType = "meal_type"
        case loggedAt = "logged_at"
    }

    /// The text as sent: trimmed.
    var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Checks every field; the first problem is a 400 naming the field.
    public func validate() throws(WriteRefusal) {
        let text = trimmedText
        guard !text.isEmpty, text.count <= Self.maximumTextLength else {
            throw .badInput("text must be 1 to \(Self.maximumTextLength) characters (FitIQ's bound)")
        }
        if let refusal = WriteRefusal.controlCharacter(in: text, field: "text", allowing: WriteRefusal.multiLine) {
            throw refusal
        }
        if let mealType, !FoodLogInput.mealTypes.contains(mealType) {
            throw .badInput("meal_type must be one of \(FoodLogInput.mealTypes.joined(separator: ", "))")
        }
        try FoodLogInput.checkLoggedAt(loggedAt)
    }

    /// `logged_at` as an instant (nil when absent or not a time with an offset).
    var loggedAtDate: Date? { FoodLogInput.instant(loggedAt) }

    /// The meal of a local hour, as the FitIQ app preselects it (`AddMealViewModel`): 5–9
    /// breakfast, 12–15 lunch, 18–21 dinner, a snack otherwise.
    static func mealType(at instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        switch calendar.component(.hour, from: instant) {
        case 5..<10: return "breakfast"
        case 12..<16: return "lunch"
        case 18..<22: return "dinner"
        default: return "snack"
        }
    }

    /// The upstream body at `now` in `zone`: `logged_at` always sent, in UTC with `Z` (the app
    /// sends it too), and `meal_type` by that time when none was given.
    func upstreamBody(now: Date, zone: TimeZone) -> JSONValue {
        let eaten = loggedAtDate ?? now
        return .object([
            "raw_input": .string(trimmedText),
            "meal_type": .string(mealType ?? Self.mealType(at: eaten, in: zone)),
            "logged_at": .string(LenientDate.format(eaten, in: .gmt)),
        ])
    }
}

/// Logging a meal in words in FitIQ: `POST /api/v1/meal-logs/natural` with `X-API-Key` and the
/// Bearer token, sent once (no retry after a timeout or a 5xx: a second one would log the meal
/// twice). FitIQ answers 201 at once with the meal `processing`.
public enum FitIQMeals {
    /// Returns the meal as the reads show it (`fitiq.meal_logs`) and its local day.
    public static func log(_ input: MealInput, context: OperationContext) async throws -> (
        meal: JSONValue, day: LocalDate
    ) {
        try input.validate()
        let client = try FitIQClient.make(context)
        let body = input.upstreamBody(now: context.clock.now, zone: context.timeZone)
        let value = try await client.post("/api/v1/meal-logs/natural", body: try JSONCoding.encode(body))
        return try logged(value, zone: context.timeZone, sent: input.loggedAtDate ?? context.clock.now)
    }

    /// The meal in FitIQ's answer and its local day (of the `logged_at` FitIQ stored, else of the
    /// one sent).
    static func logged(_ value: JSONValue, zone: TimeZone, sent: Date) throws -> (meal: JSONValue, day: LocalDate) {
        guard let meal = FitIQMealLog(value) else {
            throw BackendError(
                .badResponse, backend: FitIQClient.backend, message: "FitIQ accepted the meal but sent no id")
        }
        let stored = meal.loggedAt.flatMap { LenientDate.parse($0) } ?? sent
        return (meal.answer(zone: zone), LocalDate(containing: stored, in: zone))
    }
}
