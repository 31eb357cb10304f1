import Foundation
import Hummingbird
import Model

// MARK: - Meal logs

/// swagger v0.32.0 "Meal Logs": a resource of its own beside food logs (the FitIQ app logs
/// meals only here). A meal logged in words is `processing` for
/// `FitIQSimulator.Options.mealProcessingSeconds`, then parsed (`FitIQMealParser`) when it is
/// next read; a batch (item by item) is `manual` with its totals at once.
extension FitIQBackend {
    /// `POST /api/v1/meal-logs/natural` `{raw_input (1–1000), meal_type, logged_at?}` → 201
    /// `MealLogResponse` with `status: processing` and `estimated_completion_seconds`.
    static func createNaturalMealLog(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard var body = FitIQBody(call.request) else { return FitIQHTTP.error(invalidBody, status: 400) }
        let rawInput = body.string("raw_input")
        let meal = body.string("meal_type")
        let loggedAtRaw = body.string("logged_at")
        if body.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
        guard let rawInput, !rawInput.isEmpty else { return FitIQHTTP.error("raw_input is required", status: 400) }
        guard rawInput.count <= 1000 else {
            return FitIQHTTP.error("raw_input must be at most 1000 characters", status: 400)
        }
        guard let meal, mealTypes.contains(meal) else { return mealTypeRefused }
        let loggedAt: Int64
        switch Self.loggedAt(loggedAtRaw, call) {
        case .failure(let r): return r
        case .success(let t): loggedAt = t
        }
        let now = call.nowMicros
        let created: FitIQMealLog = store.withState { s in
            var log = FitIQMealLog(
                id: UUID().uuidString.lowercased(), userID: call.userID, rawInput: rawInput, mealType: meal,
                status: .processing, loggedAt: loggedAt, processingStartedAt: now,
                completesAt: now + Int64(s.mealProcessingSeconds * Double(Civil.microsPerSecond)), createdAt: now,
                updatedAt: now)
            log.sequence = s.sequence()
            s.mealLogs.append(log)
            return log
        }
        return FitIQHTTP.data(created.json(now: now), status: 201)
    }

    /// `POST /api/v1/meal-logs/batch` `{meal_type, logged_at?, items:[MealLogItemInput] (≥ 1)}` →
    /// 201 `MealLogWithItemsResponse`, `status: manual`.
    static func createBatchMealLog(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard var body = FitIQBody(call.request) else { return FitIQHTTP.error(invalidBody, status: 400) }
        let meal = body.string("meal_type")
        let loggedAtRaw = body.string("logged_at")
        let rawItems = body.array("items")
        if body.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
        guard let meal, mealTypes.contains(meal) else { return mealTypeRefused }
        guard let rawItems, !rawItems.isEmpty else {
            return FitIQHTTP.error("at least one item is required", status: 400)
        }
        let loggedAt: Int64
        switch Self.loggedAt(loggedAtRaw, call) {
        case .failure(let r): return r
        case .success(let t): loggedAt = t
        }
        let now = call.nowMicros
        var items: [FitIQMealLogItem] = []
        for raw in rawItems {
            guard case .object(let object) = raw else { return FitIQHTTP.error(invalidBody, status: 400) }
            var item = FitIQBody(object: object)
            let name = item.string("food_name")
            let quantity = item.number("quantity")
            let unit = item.string("unit")
            let calories = item.int("calories")
            let protein = item.number("protein_g")
            let carbs = item.number("carbs_g")
            let fat = item.number("fat_g")
            let fiber = item.number("fiber_g")
            let sugar = item.number("sugar_g")
            let foodID = item.string("food_id")
            let userFoodID = item.string("user_food_id")
            if item.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
            guard let name, !name.isEmpty, let quantity, quantity >= 0, let unit, let calories, calories >= 0,
                let protein, protein >= 0, let carbs, carbs >= 0, let fat, fat >= 0
            else {
                return FitIQHTTP.error(
                    "each item needs food_name, quantity, unit, calories, protein_g, carbs_g and fat_g (not negative)",
                    status: 400)
            }
            items.append(
                FitIQMealLogItem(
                    id: UUID().uuidString.lowercased(), foodID: foodID, userFoodID: userFoodID, name: name,
                    quantity: quantity, unit: unit, calories: calories, proteinG: protein, carbsG: carbs, fatG: fat,
                    fiberG: fiber, sugarG: sugar, createdAt: now))
        }
        let created: FitIQMealLog = store.withState { s in
            var log = FitIQMealLog(
                id: UUID().uuidString.lowercased(), userID: call.userID, mealType: meal, status: .manual,
                loggedAt: loggedAt, items: items, createdAt: now, updatedAt: now)
            log.sequence = s.sequence()
            s.mealLogs.append(log)
            return log
        }
        return FitIQHTTP.data(created.jsonWithItems(now: now), status: 201)
    }

    /// `GET /api/v1/meal-logs?status&start_date&end_date&limit(1–100, 50)&offset` →
    /// `{"meal_logs","total_count","limit","offset","has_more"}`, newest first; a meal belongs
    /// to the UTC day of its `logged_at`.
    static func listMealLogs(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let start: Int?
        let end: Int?
        switch dayParameter(call, "start_date") {
        case .failure(let r): return r
        case .success(let d): start = d
        }
        switch dayParameter(call, "end_date") {
        case .failure(let r): return r
        case .success(let d): end = d
        }
        let status = call.query("status")
        if let status, FitIQMealLog.Status(rawValue: status) == nil {
            return FitIQHTTP.error("invalid status, must be one of: processing, completed, failed, manual", status: 400)
        }
        let paging: (limit: Int, offset: Int)
        switch Self.paging(call, defaultLimit: 50) {
        case .failure(let r): return r
        case .success(let p): paging = p
        }
        let now = call.nowMicros
        let meals = store.withState { s in
            s.settleMealLogs(now: now)
            return s.mealLogs.filter { log in
                log.userID == call.userID && s.dayInRange(FitIQFormat.utcDay(log.loggedAt), start: start, end: end)
                    && (status == nil || log.status.rawValue == status)
            }
        }.sorted { ($0.loggedAt, $0.sequence) > ($1.loggedAt, $1.sequence) }
        return FitIQHTTP.data(
            page(
                "meal_logs", meals.map { $0.json(now: now) }, limit: paging.limit, offset: paging.offset,
                totalKey: "total_count"))
    }

    /// `GET /api/v1/meal-logs/{id}` → `MealLogWithItemsResponse`; 403 another user's, 404.
    static func getMealLog(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let id = call.params["id"] ?? ""
        let now = call.nowMicros
        let meal: FitIQMealLog?? = store.withState { s in
            s.settleMealLogs(now: now)
            guard let log = s.mealLogs.first(where: { $0.id == id }) else { return nil }
            return log.userID == call.userID ? .some(log) : .some(nil)
        }
        switch meal {
        case nil: return FitIQHTTP.error("meal log not found", status: 404)
        case .some(nil): return FitIQHTTP.error("you do not have permission to access this meal log", status: 403)
        case .some(let log?): return FitIQHTTP.data(log.jsonWithItems(now: now))
        }
    }

    /// `DELETE /api/v1/meal-logs/{id}` → 204; 403 another user's, 404.
    static func deleteMealLog(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        deleteOwned(\.mealLogs, what: "meal log", store, call)
    }

    /// `GET /api/v1/users/me/foods` → `{"foods","total"}`: the caller's own foods.
    static func listUserFoods(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let foods = store.withState { s in s.foods.filter { $0.userID == call.userID } }
        return FitIQHTTP.data(.object(["foods": .array(foods.map(\.json)), "total": .int(foods.count)]))
    }
}
