/// A key the cache is busy with, as the operator's dump (`SIGUSR1`) shows it.
public struct PendingFetch: Sendable, CustomStringConvertible {
    public var profile: String
    public var operation: String
    /// How long its fetch has run; nil when only waiters are left (answered at their deadline).
    public var running: Duration?
    public var waiters: Int
    /// When the fetch is abandoned (`CacheStore`'s fetch limit).
    public var limit: Duration

    public var description: String {
        let fetch =
            running.map { "fetching for \($0.components.seconds) s (abandoned at \(limit.components.seconds) s)" }
            ?? "no fetch"
        return "\(profile) \(operation): \(fetch), \(waiters) waiting"
    }
}
