import Foundation
import Model

/// One FitIQ meal log (its `MealLogResponse`): a meal the FitIQ app logged in words
/// (`POST /api/v1/meal-logs/natural`, parsed by FitIQ's AI a few seconds later), from a photo
/// once confirmed, or as a list of items (`/batch`). A resource of its own, separate from food
/// logs: its nutrients are its own totals, not a food's values per serving.
struct FitIQMealLog: Sendable, Equatable {
    enum Status: String, Sendable {
        /// FitIQ is still parsing the words: no nutrients yet.
        case processing
        /// Parsed: the totals are the meal's.
        case completed
        /// FitIQ could not parse it: no nutrients, ever.
        case failed
        /// Entered item by item: the totals are the meal's at once.
        case manual
    }

    var id: String
    var mealType: String?
    /// nil for a status FitIQ's specification does not name (read as not counted yet).
    var status: Status?
    var statusText: String?
    /// What the person wrote (`raw_input`).
    var description: String?
    var calories: Double?
    var proteinG: Double?
    var carbsG: Double?
    var fatG: Double?
    var loggedAt: String?
    var errorMessage: String?
    var estimatedCompletionSeconds: Int?

    /// Reads a meal log leniently; nil without an id.
    init?(_ value: JSONValue) {
        guard let fields = LenientFields(value["meal_log"] ?? value), let id = fields.string("id") else { return nil }
        self.id = id
        mealType = fields.string("meal_type")
        statusText = fields.string("status")
        status = statusText.flatMap { Status(rawValue: $0.lowercased()) }
        description = fields.string("raw_input", "description")
        calories = fields.value("total_calories")?.numberValue
        proteinG = fields.value("total_protein_g")?.numberValue
        carbsG = fields.value("total_carbs_g")?.numberValue
        fatG = fields.value("total_fat_g")?.numberValue
        loggedAt = fields.string("logged_at", "created_at")
        errorMessage = fields.string("error_message")
        estimatedCompletionSeconds = fields.int("estimated_completion_seconds")
    }

    /// Whether its totals count for the day: parsed or entered, with calories. A meal still
    /// processing, one that failed, or one of a status FitIQ does not document does not count
    /// (and the day says so).
    var counts: Bool {
        (status == .completed || status == .manual) && calories != nil
    }

    /// Whether FitIQ will still give it nutrients (processing, or a status the gateway does
    /// not know, which may be a step before them).
    var isPending: Bool {
        status == .processing || (status == nil && calories == nil)
    }

    /// The meal as the gateway answers it (`FitIQSchemas.mealLog`), times in `zone`.
    func answer(zone: TimeZone) -> JSONValue {
        func number(_ value: Double?, places: Double) -> JSONValue {
            guard let value, value.isFinite, abs(value) <= Double(FitIQDayNutrition.maximumCalories) else {
                return .null
            }
            return .number((value * places).rounded() / places)
        }
        let time = loggedAt.flatMap { LenientDate.parse($0) }.map { LenientDate.format($0, in: zone) }
        return .object([
            "id": .string(id),
            "meal_type": mealType.map(JSONValue.string) ?? .null,
            "status": (status?.rawValue ?? statusText).map(JSONValue.string) ?? .null,
            "description": description.map(JSONValue.string) ?? .null,
            "calories": number(calories, places: 1),
            "protein_g": number(proteinG, places: 10),
            "carbs_g": number(carbsG, places: 10),
            "fat_g": number(fatG, places: 10),
            "logged_at": time.map(JSONValue.string) ?? .null,
            "error": errorMessage.map(JSONValue.string) ?? .null,
        ])
    }

    /// The meal logs of `items` logged within `window`, each once (a meal that moved between
    /// two pages while they were read appears twice in them).
    static func meals(_ items: [JSONValue], in window: FitIQDayWindow) -> [FitIQMealLog] {
        var seen: Set<String> = []
        return items.compactMap(FitIQMealLog.init).filter {
            window.contains(time: $0.loggedAt) && seen.insert($0.id).inserted
        }
    }

    /// `GET /api/v1/meal-logs?start_date&end_date&limit&offset`, every page (`FitIQPaging`),
    /// for the UTC days `window` overlaps (the end one day further: FitIQ does not say whether
    /// its `end_date` is inclusive), keeping the meals logged within it.
    static func meals(in window: FitIQDayWindow, client: FitIQClient) async throws -> (
        meals: [FitIQMealLog], issue: SectionIssue?
    ) {
        var paging = FitIQPaging()
        while let offset = paging.nextOffset {
            let value = try await client.get(
                "/api/v1/meal-logs",
                query: [
                    ("start_date", window.firstUTCDay.description), ("end_date", window.queryEndDay.description),
                    ("limit", String(paging.pageSize)), ("offset", String(offset)),
                ])
            let page = FitIQPaging.page(value, keys: ["meal_logs", "data"])
            paging.take(page.items, hasMore: page.hasMore)
        }
        return (meals(paging.items, in: window), paging.issue("meal logs"))
    }

    /// How long an answer showing `meals` may be kept as fresh: while one is processing, until
    /// FitIQ expects it done (its `estimated_completion_seconds`, 2 to 30 s), so the next read
    /// finds its nutrients; nil (the operation's own TTL) otherwise.
    static func freshness(of meals: [FitIQMealLog]) -> TimeInterval? {
        let pending = meals.filter(\.isPending)
        guard !pending.isEmpty else { return nil }
        let seconds = pending.map { $0.estimatedCompletionSeconds ?? 5 }.min() ?? 5
        return TimeInterval(min(30, max(2, seconds)))
    }
}
