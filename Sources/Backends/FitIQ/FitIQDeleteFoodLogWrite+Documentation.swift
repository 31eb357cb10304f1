import Model

extension FitIQDeleteFoodLogWrite {
    /// `DELETE /v1/food-logs/{id}` in /openapi.json.
    public var documentation: WriteDocumentation {
        WriteDocumentation(
            operationID: "deleteFoodLog", summary: "Delete a food log entry in FitIQ.",
            description:
                "id is a food log's id as /v1/nutrition's food_logs lists it. The cached nutrition and food logs of the "
                + "profile are dropped (FitIQ cannot say which day the log was on without another call). No body and no "
                + "Content-Type needed.",
            backend: "FitIQ", parameters: [FitIQSchemas.foodLogID],
            success: .init(
                204,
                "The entry is gone; no body. Also for a log this gateway deleted (or may have deleted: a timeout, a 5xx) "
                    + "in the last 24 hours, when the DELETE is sent again: FitIQ no longer has it, as asked."),
            badRequest: "an id that is not a UUID",
            forbidden: "FitIQ answers 403 for another user's log.",
            notFound: "`not_found`: FitIQ has no food log with this id, and this gateway did not delete it.")
    }
}
