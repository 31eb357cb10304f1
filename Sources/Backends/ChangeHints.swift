import Logging

/// A backend's own word that data changed (8alls' WebSocket): while the gateway runs, `listen`
/// calls its handler with the hint's kind, and the cached entries of `operations` for the
/// profile stop being fresh — kept, and refetched on the next request.
public struct ChangeHints: Sendable {
    /// The operations whose cached answers a hint makes stale.
    public var operations: [String]
    /// Runs until cancelled; calls the handler once per hint.
    public var listen: @Sendable (Logger, @escaping @Sendable (String) async -> Void) async -> Void

    public init(
        operations: [String],
        listen: @escaping @Sendable (Logger, @escaping @Sendable (String) async -> Void) async -> Void
    ) {
        self.operations = operations
        self.listen = listen
    }
}
