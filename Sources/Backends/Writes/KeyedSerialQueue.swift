/// Runs operations one at a time per key, in arrival order; different keys run in parallel.
/// Tickedify's add-to-inbox rewrites the whole inbox, so two adds for one account at once lose
/// a task: they go through here, keyed by account.
public actor KeyedSerialQueue {
    private var tails: [String: Task<Void, Never>] = [:]
    private var waiting: [String: Int] = [:]

    public init() {}

    public func run<Value: Sendable>(_ key: String, _ operation: @escaping @Sendable () async throws -> Value)
        async throws -> Value
    {
        let previous = tails[key]
        let work = Task<Value, any Error> {
            await previous?.value
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
        return try await work.value
    }
}
