import Model

extension FitIQLogFoodWrite {
    /// `POST /v1/food-logs` in /openapi.json.
    public var documentation: WriteDocumentation {
        WriteDocumentation(
            operationID: "createFoodLog", summary: "Log food in FitIQ.",
            description:
                "food_id is a food of FitIQ's catalog (or the user's own); logged_at (default now) is sent in UTC. The "
                + "cached nutrition and food logs of the local day it is logged on (`date` in the answer) are dropped.",
            backend: "FitIQ", body: FitIQSchemas.newFoodLog,
            success: .init(
                201, "The logged entry and the local day it counts for.", schema: FitIQSchemas.foodLogCreated),
            badRequest:
                "a required field missing or of the wrong type, meal_type or food_source not one of the allowed "
                + "values, servings below 0.01 (FitIQ's minimum) or over 100, logged_at without an offset, notes too long; or an unknown field",
            notFound: "`upstream_rejected`: FitIQ does not know the food.",
            links: [.id("DeleteFoodLog", to: "deleteFoodLog", from: "/food_log/id")])
    }
}
