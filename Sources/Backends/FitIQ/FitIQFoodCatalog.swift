import Foundation
import Model

/// The foods' values per serving the gateway has read from one FitIQ server
/// (`GET /api/v1/foods/{id}`), kept in memory so a day's nutrition costs one call per food the
/// first time only. Bounded: when full it starts over.
actor FitIQFoodCatalog {
    static let capacity = 2_000
    private var foods: [String: FitIQDayNutrition.Food] = [:]

    /// The catalog of the server at `baseURL`, shared by every profile that uses it.
    static func shared(_ registry: SessionRegistry, baseURL: String) -> FitIQFoodCatalog {
        registry.shared("fitiq|foods|\(baseURL)") { FitIQFoodCatalog() }
    }

    /// The foods of `ids` (lowercased ids), asking `client` for those not known yet (all at
    /// once); a food FitIQ does not find (404) is left out.
    func foods(_ ids: Set<String>, client: FitIQClient) async throws -> [String: FitIQDayNutrition.Food] {
        var found: [String: FitIQDayNutrition.Food] = [:]
        var missing: [String] = []
        for id in ids.sorted() {
            if let food = foods[id] { found[id] = food } else { missing.append(id) }
        }
        let fetched = try await withThrowingTaskGroup(of: (String, FitIQDayNutrition.Food?).self) { group in
            for id in missing {
                group.addTask { (id, try await Self.food(id, client: client)) }
            }
            var fetched: [(String, FitIQDayNutrition.Food?)] = []
            for try await result in group { fetched.append(result) }
            return fetched
        }
        for case (let id, let food?) in fetched {
            if foods.count >= Self.capacity { foods.removeAll() }
            foods[id] = food
            found[id] = food
        }
        return found
    }

    /// Keeps foods FitIQ sent in another answer (a food search, a barcode lookup), so logging one
    /// of them costs no `GET /api/v1/foods/{id}` later.
    func remember(_ found: [FitIQDayNutrition.Food]) {
        for food in found {
            guard let id = food.id else { continue }
            if foods.count >= Self.capacity, foods[id] == nil { foods.removeAll() }
            foods[id] = food
        }
    }

    /// The user's own foods (`GET /api/v1/users/me/foods`, `{"foods","total"}`): asked for when
    /// the food catalog's API-key route does not find a logged food; those logged are then
    /// remembered by id.
    static func userFoods(client: FitIQClient) async throws -> [FitIQDayNutrition.Food] {
        let value = try await client.get("/api/v1/users/me/foods")
        return (LenientList.items(in: value, keys: ["foods", "data"]) ?? []).compactMap(FitIQDayNutrition.Food.init)
    }

    /// `GET /api/v1/foods/{id}`; nil when FitIQ does not find it.
    static func food(_ id: String, client: FitIQClient) async throws -> FitIQDayNutrition.Food? {
        do {
            return FitIQDayNutrition.Food(
                try await client.get("/api/v1/foods/" + QueryString.pathSegment(id), notFoundIsAnswer: true))
        } catch let error as BackendError where error.status == 404 {
            return nil
        }
    }
}
