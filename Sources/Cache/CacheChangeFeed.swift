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
    /// The subscriber is removed when its stream terminates: the handler is in place before
    /// it is registered, so a stream that ends at any moment never leaves a dead subscriber.
    public func subscribe() -> AsyncStream<CacheChange> {
        let (stream, continuation) = AsyncStream<CacheChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        let registered = state.withLock { state in
            guard !state.finished else { return false }
            state.subscribers[id] = continuation
            return true
        }
        if !registered { continuation.finish() }
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
