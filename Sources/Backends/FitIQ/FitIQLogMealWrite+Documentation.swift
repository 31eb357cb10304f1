import Model

extension FitIQLogMealWrite {
    /// `POST /v1/meals` in /openapi.json.
    public var documentation: WriteDocumentation {
        WriteDocumentation(
            operationID: "createMeal", summary: "Log a meal in words in FitIQ, as the FitIQ app does.",
            description:
                "FitIQ answers at once with the meal `processing` and works out its items and nutrients in a few "
                + "seconds; /v1/nutrition's meal_logs show it processing until then (that answer is kept for a few "
                + "seconds only). The cached nutrition and meal logs of the meal's local day (`date`) are dropped. "
                + "Sent once: no retry after a timeout, which could log the meal twice (use an Idempotency-Key).",
            backend: "FitIQ", body: FitIQSchemas.newMeal,
            success: .init(
                201, "The meal (normally processing) and the local day it counts for.", schema: FitIQSchemas.mealCreated
            ),
            badRequest:
                "text missing, empty, over 1,000 characters or with control characters; meal_type not one of the "
                + "allowed values; logged_at without an offset; or an unknown field")
    }
}
