import Model

/// One backend, whole: what the core needs to know about it. Each backend's home
/// (`Sources/Backends/<Name>/`) holds its client, auth, settings (`Settings`), operations,
/// writes and what they invalidate, and its parts of `/v1/summary` and `/v1/sources`; the
/// core knows backends only through this protocol and `BackendCatalog.all`.
public protocol Backend: Sendable {
    associatedtype Settings: BackendSettings

    /// The read operations routes can name (`tickedify.list`).
    var operations: [any BackendOperation] { get }

    /// The write endpoints it serves (`POST /v1/tasks`).
    var writes: [any BackendWrite] { get }

    /// The backend's change hints for one profile, if it pushes any.
    func changeHints(for profile: ProfileConfig) -> ChangeHints?

    /// What the backend adds to `/v1/summary`, if anything.
    var summaryPart: (any SummaryPart)? { get }

    /// What the backend adds to its line of `/v1/sources`, if anything.
    var sourcesPart: (any SourcesPart)? { get }

    /// What it adds to `/v1/calendar.ics` (nil: nothing).
    var calendarFeedPart: (any CalendarFeedPart)? { get }

    /// How `daygate connect` and `daygate check` reach its credentials, if it has any flow.
    var connector: (any BackendConnector)? { get }

    /// One reader per kind of upstream answer the backend reads (its operations' answers, its
    /// writes', its logins' and sessions'), each calling the functions the client calls on that
    /// body: what the fuzzers and the hostile-input tests feed. No default: a backend that reads
    /// answers must say how.
    var answerReaders: [BackendAnswerReader] { get }
}

extension Backend {
    /// The backend's name (`tickedify`): its key in a profile and the prefix of its operations.
    public var name: String { Settings.backend }
    public var settingsType: any BackendSettings.Type { Settings.self }

    public func changeHints(for profile: ProfileConfig) -> ChangeHints? { nil }

    public var writes: [any BackendWrite] { [] }

    public var summaryPart: (any SummaryPart)? { nil }

    public var sourcesPart: (any SourcesPart)? { nil }

    public var calendarFeedPart: (any CalendarFeedPart)? { nil }

    public var connector: (any BackendConnector)? { nil }
}
