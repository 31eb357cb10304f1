import Model

/// 8alls: the family calendar; it hints changes over a WebSocket (`EightAllsHintListener`).
public struct EightAllsBackend: Backend {
    public typealias Settings = EightAllsSettings

    public init() {}

    public var operations: [any BackendOperation] {
        [EightAllsEventsOperation()]
    }

    /// Every message on 8alls' `/ws` makes the profile's cached events stale.
    public func changeHints(for profile: ProfileConfig) -> ChangeHints? {
        guard let endpoint = profile.eightalls?.endpoint, let url = EightAllsHintListener.url(for: endpoint) else {
            return nil
        }
        let listener = EightAllsHintListener(url: url)
        return ChangeHints(operations: [EightAllsEventsOperation().name]) { logger, onHint in
            await listener.run(logger: logger, onHint: onHint)
        }
    }

    public var summaryPart: (any SummaryPart)? { EightAllsSummaryPart() }

    public var calendarFeedPart: (any CalendarFeedPart)? { EightAllsCalendarFeedPart() }

    public var connector: (any BackendConnector)? { EightAllsConnect() }

    public var writes: [any BackendWrite] {
        [EightAllsEventWrite(.create), EightAllsEventWrite(.update), EightAllsEventWrite(.delete)]
    }
}
