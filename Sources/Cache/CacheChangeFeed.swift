import Foundation
import Synchronization

/// A change to what the cache holds for a key: new data, a failed refresh (the section went
/// stale), or entries dropped by invalidation.
public struct CacheChange: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case updated, failed, invalidated
    }

    public var kind: Kind
    public var profile: String
    public var operation: String

    public init(kind: Kind, profile: String, operation: String) {
        self.kind = kind
        self.profile = profile
        self.operation = operation
    }
}

/// Fans cache changes out to any number of subscribers (the `/v1/stream` clients). Slow
/// subscribers lose the oldest changes rather than holding memory.
public final class CacheChangeFeed: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<CacheChange>.Continuation] = [:]
        var nextID: UInt64 = 0
        var finished = false
    }

    private let state = Mutex(State())

    public init() {}

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A stream of every change from now on; it ends when the subscriber stops iterating or
    /// the feed finishes.
    public func subscribe() -> AsyncStream<CacheChange> {
        let (stream, continuation) = AsyncStream<CacheChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id: UInt64? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    public func publish(_ change: CacheChange) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            subscriber.yield(change)
        }
    }

    /// Ends every stream (graceful shutdown) and refuses new subscribers.
    public func finish() {
        let subscribers = state.withLock { state -> [AsyncStream<CacheChange>.Continuation] in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            subscriber.finish()
        }
    }
}
