import Foundation
import Model

/// What a client may send to log food in FitIQ (`POST /api/v1/food-logs`, docs/backends/fitiq.md).
public struct FoodLogInput: Sendable, Codable, Equatable {
    public static let foodSources = ["custom", "barcode", "database"]
    public static let mealTypes = ["breakfast", "lunch", "dinner", "snack"]
    /// FitIQ's own minimum (its OpenAPI spec: `servings` `minimum: 0.01`).
    public static let minimumServings = 0.01
    /// The gateway's bound (FitIQ states none): a typo such as 1000 for 1.000 is refused.
    public static let maximumServings = 100.0
    public static let maximumNotesLength = 500
    /// A UUID's pattern, as /openapi.json states `food_id`'s.
    public static let foodIDPattern =
        "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"

    public var foodID: String
    /// `custom`, `barcode` or `database`.
    public var foodSource: String
    /// `breakfast`, `lunch`, `dinner` or `snack`.
    public var mealType: String
    /// At least 0.01 (FitIQ's minimum), at most 100.
    public var servings: Double
    /// ISO-8601 with an offset (`Z` or `±hh:mm`); nil = now.
    public var loggedAt: String?
    /// At most 500 characters.
    public var notes: String?

    public init(
        foodID: String, foodSource: String, mealType: String, servings: Double, loggedAt: String? = nil,
        notes: String? = nil
    ) {
        self.foodID = foodID
        self.foodSource = foodSource
        self.mealType = mealType
        self.servings = servings
        self.loggedAt = loggedAt
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case foodID = "food_id"
        case foodSource = "food_source"
        case mealType = "meal_type"
        case servings
        case loggedAt = "logged_at"
        case notes
    }

    /// Checks every field; the first problem is a 400 naming the field.
    public func validate() throws(WriteRefusal) {
        // FitIQ's published description: `food_id` `format: uuid` (its foods' ids are UUIDs); any
        // other is refused here, before FitIQ is called.
        guard UUID(uuidString: foodID) != nil else {
            throw .badInput("food_id must be a food's id (a UUID, as FitIQ's foods have)")
        }
        guard Self.foodSources.contains(foodSource) else {
            throw .badInput("food_source must be one of \(Self.foodSources.joined(separator: ", "))")
        }
        guard Self.mealTypes.contains(mealType) else {
            throw .badInput("meal_type must be one of \(Self.mealTypes.joined(separator: ", "))")
        }
        guard servings.isFinite, servings >= Self.minimumServings, servings <= Self.maximumServings else {
            throw .badInput(
                "servings must be a number from \(Self.minimumServings) (FitIQ's minimum) to \(Int(Self.maximumServings))"
            )
        }
        try Self.checkLoggedAt(loggedAt)
        if let notes {
            guard notes.count <= Self.maximumNotesLength else {
                throw .badInput("notes must be at most \(Self.maximumNotesLength) characters")
            }
            if let refusal = WriteRefusal.controlCharacter(in: notes, field: "notes", allowing: WriteRefusal.multiLine)
            {
                throw refusal
            }
        }
    }

    /// `logged_at` as an instant (nil when absent or not a time with an offset).
    var loggedAtDate: Date? { Self.instant(loggedAt) }

    /// A `logged_at` as an instant (nil when absent or not a time with an offset): of a food
    /// log, and of a meal (`MealInput`).
    static func instant(_ loggedAt: String?) -> Date? {
        guard let loggedAt, loggedAt.count <= 40 else { return nil }
        return LenientDate.parseWithOffset(loggedAt.trimmingCharacters(in: .whitespaces))
    }

    /// A 400 when `loggedAt` is given and is no time with an offset.
    static func checkLoggedAt(_ loggedAt: String?) throws(WriteRefusal) {
        if loggedAt != nil, instant(loggedAt) == nil {
            throw .badInput("logged_at must be an ISO-8601 time with an offset, e.g. 2026-11-23T12:30:00+01:00")
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    /// The upstream body; `logged_at` goes as UTC with `Z` (FitIQ's dates are UTC).
    var upstreamBody: JSONValue {
        var body: JSONObject = [
            "food_id": .string(foodID.trimmingCharacters(in: .whitespaces)), "food_source": .string(foodSource),
            "meal_type": .string(mealType), "servings": .number(servings),
        ]
        if let date = loggedAtDate { body["logged_at"] = .string(LenientDate.format(date, in: .gmt)) }
        if let notes { body["notes"] = .string(notes) }
        return .object(body)
    }
}

/// Logging food in FitIQ: `POST /api/v1/food-logs` with `X-API-Key` and the Bearer token (a
/// 401 refreshes the token and sends again: nothing was written). Sent once otherwise: no retry
/// after a timeout or a 5xx — the day's logs are read back once instead, and a log that landed
/// is answered as done (`FitIQFoodLogReadBack`). A food FitIQ does not know is its 404, kept as
/// a `BackendError` `.rejected` with status 404.
public enum FitIQFoodLogs {
    /// Returns the log as the reads show it (`fitiq.food_logs`) and the local days whose cached
    /// nutrition and logs it makes wrong: the day of the `logged_at` FitIQ stored (in
    /// `context.timeZone`) and the day the gateway expected (of the `logged_at` sent, or
    /// today when none was sent: FitIQ's clock decides then, and it may be across midnight).
    /// The first day is the log's own.
    public static func log(_ input: FoodLogInput, context: OperationContext) async throws -> (
        log: JSONValue, days: [LocalDate]
    ) {
        try input.validate()
        let client = try FitIQClient.make(context)
        let expected =
            input.loggedAtDate.map { LocalDate(containing: $0, in: context.timeZone) }
            ?? context.today
        let sentAt = Date()
        let value: JSONValue
        do {
            value = try await client.post("/api/v1/food-logs", body: try JSONCoding.encode(input.upstreamBody))
        } catch  where BackendError.mayHaveBeenDone(error) {
            guard
                let stored = await FitIQFoodLogReadBack.find(
                    input, sentAt: sentAt, expected: expected, client: client, zone: context.timeZone)
            else { throw error }
            context.logger.warning(
                "FitIQ did not confirm the food log, but reading the day back found it stored: answered as done",
                metadata: ["backend": "fitiq"])
            value = stored
        }
        return try logged(value, zone: context.timeZone, expected: expected)
    }

    /// The log in FitIQ's answer to the POST, and the local days it touches (`days`).
    static func logged(_ value: JSONValue, zone: TimeZone, expected: LocalDate) throws -> (
        log: JSONValue, days: [LocalDate]
    ) {
        let row = value["food_log"] ?? value["log"] ?? value
        guard let log = FitIQRecord.foodLog(row, zone: zone) else {
            throw BackendError(
                .badResponse, backend: FitIQClient.backend, message: "FitIQ accepted the food log but sent no id")
        }
        let stored = log["logged_at"]?.stringValue.flatMap { LenientDate.parse($0) }.map {
            LocalDate(containing: $0, in: zone)
        }
        return (log, days(stored: stored, expected: expected))
    }

    /// The local days a food log touches: the stored one first, then the expected one if it
    /// differs.
    static func days(stored: LocalDate?, expected: LocalDate) -> [LocalDate] {
        guard let stored else { return [expected] }
        return stored == expected ? [stored] : [stored, expected]
    }
}
