import Model

/// Runs operations one at a time per key, in arrival order; different keys run in parallel.
/// Tickedify's add-to-inbox rewrites the whole inbox, so two adds for one account at once lose
/// a task: they go through here, keyed by account.
///
/// No wait here is endless: a caller waits `SharedFlight.waitLimit` at most for its turn and
/// its operation together; one that stops waiting (its limit, its cancellation) cancels its
/// operation, which then never starts if its turn had not come. An operation whose turn does
/// not come within the limit (the one before it hangs) fails without being sent; the turn
/// passes on only once every operation before has ended, so writes for one account never run
/// side by side, also after a caller gave up on one that still runs.
public actor KeyedSerialQueue {
    /// The last operation queued per key, with what ends when it and all before it have ended.
    private var tails: [String: (id: UInt64, task: Task<Void, Never>)] = [:]
    private var nextID: UInt64 = 0

    public init() {}

    public func run<Value: Sendable>(
        _ key: String, backend: String, limit: Duration = SharedFlight.waitLimit,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let previous = tails[key]?.task
        nextID += 1
        let id = nextID
        let work = Task<Value, any Error> {
            if let previous {
                _ = try await BoundedWait.value(of: previous, until: .now + limit)
            }
            try Task.checkCancellation()
            return try await operation()
        }
        let tail = Task<Void, Never> {
            _ = try? await work.value
            // Not sent because the one before did not end in time: the turn still waits for it.
            await previous?.value
            self.finished(key, id)
        }
        tails[key] = (id, tail)
        do {
            return try await SharedFlight.value(of: work, within: limit, backend: backend, what: "the queued write")
        } catch {
            work.cancel()
            throw error
        }
    }

    private func finished(_ key: String, _ id: UInt64) {
        if tails[key]?.id == id { tails.removeValue(forKey: key) }
    }
}
