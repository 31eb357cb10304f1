import Model

/// PRSNL: saved links and notes, behind a rotating JWT or a static token.
public struct PRSNLBackend: Backend {
    public typealias Settings = PRSNLSettings

    public init() {}

    public var operations: [any BackendOperation] {
        [
            PRSNLTimelineOperation(), PRSNLTimelineCursorOperation(), PRSNLSearchOperation(), PRSNLTagsOperation(),
            PRSNLItemOperation(),
        ]
    }

    public var writes: [any BackendWrite] {
        [PRSNLCaptureWrite()]
    }

    public var connector: (any BackendConnector)? { PRSNLConnect() }
}
