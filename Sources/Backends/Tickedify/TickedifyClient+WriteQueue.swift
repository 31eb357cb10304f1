import Model

extension TickedifyClient {
    /// Every write of an account, one at a time, in arrival order.
    static let writeQueue = KeyedSerialQueue()

    /// Runs `write` after the account's earlier writes are done. The real server rewrites the
    /// whole inbox on each add (it reads the inbox, deletes every open inbox row and inserts
    /// them again, outside a transaction), so any write that changes `taken` at the same time
    /// can be undone by it: a task completed during an add comes back live, a task reopened
    /// into the inbox during an add is lost. Completing, reopening and the plan's writes
    /// (which shift positions in several queries without a transaction) therefore queue
    /// behind the adds and each other. Keyed by the account (server and e-mail), as its
    /// session is: two profiles with one account share the queue.
    func serialised<Value: Sendable>(_ write: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await Self.writeQueue.run(Self.fingerprint(settings), backend: TickedifySettings.backend, write)
    }
}
