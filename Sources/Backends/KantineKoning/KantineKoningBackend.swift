import Model

/// Kantine Koning: canteen shifts (diensten) at sports clubs, one token per enrollment.
public struct KantineKoningBackend: Backend {
    public typealias Settings = KantineKoningSettings

    public init() {}

    public var operations: [any BackendOperation] {
        [KantineKoningDienstenOperation(), KantineKoningLeaderboardOperation()]
    }

    public var summaryPart: (any SummaryPart)? { KantineKoningSummaryPart() }

    public var calendarFeedPart: (any CalendarFeedPart)? { KantineKoningCalendarFeedPart() }

    public var sourcesPart: (any SourcesPart)? { KantineKoningSourcesPart() }

    public var writes: [any BackendWrite] {
        [KantineKoningVolunteerWrite(.add), KantineKoningVolunteerWrite(.remove)]
    }

    public var connector: (any BackendConnector)? { KantineKoningConnect() }
}
