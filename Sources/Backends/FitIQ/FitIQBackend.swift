import Model

/// FitIQ: nutrition, workouts and sleep, behind an API key and a rotating JWT.
public struct FitIQBackend: Backend {
    public typealias Settings = FitIQSettings

    public init() {}

    public var operations: [any BackendOperation] {
        [
            FitIQNutritionOperation(), FitIQFoodLogsOperation(), FitIQMealLogsOperation(), FitIQWorkoutsOperation(),
            FitIQSleepOperation(), FitIQFoodSearchOperation(), FitIQFoodBarcodeOperation(),
        ]
    }

    public var summaryPart: (any SummaryPart)? { FitIQSummaryPart() }

    public var writes: [any BackendWrite] {
        [FitIQLogFoodWrite(), FitIQDeleteFoodLogWrite(), FitIQLogMealWrite()]
    }

    public var connector: (any BackendConnector)? { FitIQConnect() }
}
