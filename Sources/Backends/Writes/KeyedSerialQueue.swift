import Model

/// Runs operations one at a time per key, in arrival order; different keys run in parallel.
/// Tickedify's add-to-inbox rewrites the whole inbox, so two adds for one account at once lose
/// a task: they go through here, keyed by account.
///
/// No wait here is endless: a caller waits `SharedFlight.waitLimit` at most for its turn and
/// its operation together; one that stops waiting (its limit, its cancellation) cancels its
/// operation, which then never starts if its turn had not come. An operation whose turn does
/// not come within the limit (the one before it hangs) fails without being sent, so writes
/// for one account never run side by side.
public actor KeyedSerialQueue {
    private var tails: [String: Task<Void, Never>] = [:]
    private var waiting: [String: Int] = [:]

    public init() {}

    public func run<Value: Sendable>(
        _ key: String, backend: String, limit: Duration = SharedFlight.waitLimit,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let previous = tails[key]
        let work = Task<Value, any Error> {
            if let previous {
                _ = try await BoundedWait.value(of: previous, until: .now + limit)
            }
            try Task.checkCancellation()
            return try await operation()
        }
        let tail = Task<Void, Never> { _ = try? await work.value }
        tails[key] = tail
        waiting[key, default: 0] += 1
        defer {
            waiting[key, default: 1] -= 1
            if waiting[key] == 0 {
                waiting.removeValue(forKey: key)
                tails.removeValue(forKey: key)
            }
        }
        do {
            return try await SharedFlight.value(of: work, within: limit, backend: backend, what: "the queued write")
        } catch {
            work.cancel()
            throw error
        }
    }
}
