import Model

/// Tickedify: tasks and the daily plan, behind a cookie session (see docs/backends/tickedify.md).
public struct TickedifyBackend: Backend {
    public typealias Settings = TickedifySettings

    public init() {}

    public var operations: [any BackendOperation] {
        [
            TickedifyDailyPlanOperation(), TickedifyListOperation(), TickedifyCountsOperation(),
            TickedifyCompletedOperation(),
        ]
    }

    public var summaryPart: (any SummaryPart)? { TickedifySummaryPart() }

    public var calendarFeedPart: (any CalendarFeedPart)? { TickedifyCalendarFeedPart() }

    public var sourcesPart: (any SourcesPart)? { TickedifySourcesPart() }

    public var writes: [any BackendWrite] {
        [TickedifyAddTaskWrite()] + TickedifyTaskWrite.Kind.allCases.map(TickedifyTaskWrite.init)
    }

    public var connector: (any BackendConnector)? { TickedifyConnect() }
}
