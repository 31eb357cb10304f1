import Foundation
import Model

extension FitIQBackend {
    /// Every FitIQ answer the gateway and `daygate connect` read: each through
    /// `FitIQClient.payload` (the unwrapping of a 2xx answer) and then the functions its
    /// operation or write calls on it. Foods a list names are taken as known (250 kcal a
    /// serving), so a log's servings reach the day's totals as they do in production.
    public var answerReaders: [BackendAnswerReader] {
        let day = BackendAnswerReader.referenceDay
        let now = BackendAnswerReader.referenceNow
        func payload(
            _ name: String, _ read: @escaping @Sendable (JSONValue, TimeZone) throws -> Void
        ) -> BackendAnswerReader {
            BackendAnswerReader(name) { body, zone in try read(FitIQClient.payload(Data(body)), zone) }
        }
        return [
            // `GET /api/v1/food-logs/summary`: read for the calorie goal only.
            payload("fitiq.nutrition") { value, _ in
                _ = FitIQDayNutrition.goal(inSummary: value)
            },
            payload("fitiq.food_logs") { value, zone in
                let rows = FitIQFoodLogsOperation.rows(value, in: FitIQDayWindow(day: day, zone: zone))
                let foods = Self.known(FitIQDayNutrition.foodIDsToLookUp(rows))
                _ = try OperationOutput(encoding: FitIQFoodLogsOperation.answer(rows, foods: foods, zone: zone))
                let nutrition = try FitIQDayNutrition.summary(date: day, logs: rows, foods: foods, goal: 2000)
                let output = try OperationOutput(encoding: nutrition.summary, issues: nutrition.issues)
                BackendAnswerReader.cached(output, of: FitIQNutritionOperation().name, by: self, zone: zone)
            },
            // `GET /api/v1/meal-logs`: the day's meals, their section, and the day's totals with them.
            payload("fitiq.meal_logs") { value, zone in
                let paging = Self.pages(of: value, keys: ["meal_logs", "data"])
                let meals = FitIQMealLog.meals(paging.items, in: FitIQDayWindow(day: day, zone: zone))
                let output = try OperationOutput(
                    encoding: FitIQMealLogsOperation.answer(meals, zone: zone),
                    issues: paging.issue("meal logs").map { [$0] } ?? [], freshFor: FitIQMealLog.freshness(of: meals))
                BackendAnswerReader.cached(output, of: FitIQMealLogsOperation().name, by: self, zone: zone)
                let nutrition = try FitIQDayNutrition.summary(date: day, logs: [], foods: [:], meals: meals, goal: 2000)
                _ = try OperationOutput(encoding: nutrition.summary, issues: nutrition.issues)
            },
            // `GET /api/v1/users/me/foods`: the user's own foods.
            payload("fitiq.user_foods") { value, _ in
                for food in (LenientList.items(in: value, keys: ["foods", "data"]) ?? []).compactMap(
                    FitIQDayNutrition.Food.init)
                {
                    _ = try JSONCoding.encode(food.answer())
                }
            },
            payload("fitiq.log_meal") { value, zone in
                _ = try JSONCoding.encode(FitIQMeals.logged(value, zone: zone, sent: now).meal)
            },
            payload("fitiq.workouts") { value, zone in
                let window = FitIQDayWindow(first: day.adding(days: -6), last: day, zone: zone)
                let paging = Self.pages(of: value, keys: ["workouts", "data"])
                _ = try OperationOutput(
                    encoding: FitIQWorkoutsOperation.workouts(paging.items, window: window, zone: zone),
                    issues: paging.issue("workouts").map { [$0] } ?? [])
            },
            payload("fitiq.sleep") { value, zone in
                let window = FitIQDayWindow(first: day.adding(days: -6), last: day, zone: zone)
                let paging = Self.pages(of: value, keys: ["sessions", "data"])
                _ = try OperationOutput(
                    encoding: FitIQSleepOperation.sessions(paging.items, window: window, zone: zone),
                    issues: paging.issue("sleep sessions").map { [$0] } ?? [])
            },
            // `GET /api/v1/foods/{id}` (the food catalog): the food, and a day that logged two servings of it.
            payload("fitiq.food") { value, _ in
                guard let food = FitIQDayNutrition.Food(value) else { return }
                _ = try JSONCoding.encode(food.answer())
                let log: JSONValue = .object([
                    "id": .string("log-1"), "food_id": .string(food.id ?? "food-1"), "meal_type": .string("lunch"),
                    "servings": .int(2),
                ])
                _ = try FitIQDayNutrition.summary(
                    date: day, logs: [log], foods: [food.id ?? "food-1": food], goal: 2000
                ).summary
            },
            payload("fitiq.food_search") { value, _ in
                _ = try OperationOutput(encoding: FitIQFoodSearchOperation.foods(value).map { $0.answer() })
            },
            payload("fitiq.food_barcode") { value, _ in
                _ = try OperationOutput(encoding: FitIQFoodBarcodeOperation.food(value).answer(foundByBarcode: true))
            },
            payload("fitiq.log_food") { value, zone in
                _ = try JSONCoding.encode(FitIQFoodLogs.logged(value, zone: zone, expected: day).log)
            },
            // `POST /api/v1/auth/login` and `/refresh`: the tokens, and when the access token expires.
            BackendAnswerReader("fitiq.tokens") { body, _ in
                let tokens = try FitIQClient.tokens(Data(body))
                _ = JWTClaims.expiresSoon(tokens.access, now: now)
                _ = JWTClaims.expiry(of: tokens.access)
            },
            BackendAnswerReader("fitiq.connect_login") { body, _ in
                _ = RefreshTokenLogin.tokens(Data(body))
            },
            .upstreamError("fitiq"),
        ]
    }

    /// The foods of `ids`, each taken as known at 250 kcal a serving.
    static func known(_ ids: Set<String>) -> [String: FitIQDayNutrition.Food] {
        Dictionary(
            uniqueKeysWithValues: ids.map {
                ($0, FitIQDayNutrition.Food(calories: 250, proteinG: 10, carbsG: 30, fatG: 8, id: $0, name: "Food"))
            })
    }

    /// The pages a server that answers `value` to every page gives (`FitIQPaging`'s own bounds
    /// end it: the cap, or a page that brings nothing or says there is no more).
    static func pages(of value: JSONValue, keys: [String]) -> FitIQPaging {
        var paging = FitIQPaging()
        while paging.nextOffset != nil {
            let page = FitIQPaging.page(value, keys: keys)
            paging.take(page.items, hasMore: page.hasMore)
        }
        return paging
    }
}
