import Model

/// The one list that registers backends: every backend daygate ships, in the order answers list
/// them. Adding a backend is one line here (and its home, its routes and its simulator).
public enum BackendCatalog {
    public static let all: [any Backend] = [
        TickedifyBackend(),
        EightAllsBackend(),
        KantineKoningBackend(),
        FitIQBackend(),
        PRSNLBackend(),
        ICSBackend(),
    ]

    /// The settings sections a profile may hold (for config decoding).
    public static var settings: BackendSettingsCatalog {
        BackendSettingsCatalog(all.map(\.settingsType))
    }

    /// The backends' parts of `/v1/summary`, in registration order.
    public static var summaryParts: [any SummaryPart] { all.compactMap(\.summaryPart) }

    /// The backends' parts of `/v1/sources`, in registration order.
    public static var sourcesParts: [any SourcesPart] { all.compactMap(\.sourcesPart) }

    /// Every backend's part of `/v1/calendar.ics`.
    public static var calendarFeedParts: [any CalendarFeedPart] { all.compactMap(\.calendarFeedPart) }

    /// Every backend's write endpoints.
    public static var writes: [any BackendWrite] { all.flatMap(\.writes) }

    /// The backends' connect flows (`daygate connect`, `daygate check`), in registration order.
    public static var connectors: [any BackendConnector] { all.compactMap(\.connector) }

    /// The backends' names, in registration order.
    public static var names: [String] { all.map(\.name) }
}
