import Model

/// The end of every wait on a backend's shared work (a login, a session check, a page read
/// for several sections, a queued write): `waitLimit` after the wait began, or the waiting
/// task's cancellation. The work itself is left to end on its own time limits (each upstream
/// call has one); the waiter gets a timeout it can answer with.
public enum SharedFlight {
    /// How long anyone waits for a backend's shared work: longer than any single call's
    /// timeout with its retries, so it only ends waits that something else failed to end.
    public static let waitLimit: Duration = .seconds(60)

    /// `task`'s value, or a `BackendError` timeout naming `what` once `limit` has passed.
    public static func value<Success: Sendable>(
        of task: Task<Success, any Error>, within limit: Duration = waitLimit, backend: String, what: String
    ) async throws -> Success {
        do {
            return try await BoundedWait.value(of: task, until: .now + limit)
        } catch BoundedWait.Ended.deadlinePassed {
            throw BackendError(
                .timeout, backend: backend,
                message: "\(backend): \(what) did not end within \(limit.components.seconds) s")
        }
    }
}
