import Foundation

/// The lifetimes of one entry: fresh for `ttl`, then served while revalidating for
/// `staleWhileRevalidate`, then served only on backend failure for `staleIfError`, then gone.
public struct CachePolicy: Sendable, Hashable {
    public var ttl: TimeInterval
    public var staleWhileRevalidate: TimeInterval
    public var staleIfError: TimeInterval

    public init(ttl: TimeInterval, staleWhileRevalidate: TimeInterval? = nil, staleIfError: TimeInterval = 7 * 86_400) {
        self.ttl = ttl
        self.staleWhileRevalidate = staleWhileRevalidate ?? ttl
        self.staleIfError = staleIfError
    }

    /// The windows of an entry fetched at `fetchedAt`; fresh for `ttl`, or for `freshFor` when
    /// the answer asks for less (never negative).
    public func windows(fetchedAt: Date, freshFor: TimeInterval? = nil) -> EntryWindows {
        let fresh = freshFor.map { max(0, min(ttl, $0)) } ?? ttl
        let freshUntil = fetchedAt.addingTimeInterval(fresh)
        let revalidateUntil = freshUntil.addingTimeInterval(staleWhileRevalidate)
        return EntryWindows(
            fetchedAt: fetchedAt, freshUntil: freshUntil, revalidateUntil: revalidateUntil,
            expiresAt: revalidateUntil.addingTimeInterval(staleIfError)
        )
    }
}

/// When an entry was fetched and when each of its windows ends.
public struct EntryWindows: Sendable, Hashable {
    public var fetchedAt: Date
    public var freshUntil: Date
    public var revalidateUntil: Date
    public var expiresAt: Date

    public init(fetchedAt: Date, freshUntil: Date, revalidateUntil: Date, expiresAt: Date) {
        self.fetchedAt = fetchedAt
        self.freshUntil = freshUntil
        self.revalidateUntil = revalidateUntil
        self.expiresAt = expiresAt
    }

    public enum Phase: Sendable, Hashable, CaseIterable {
        /// Served as is.
        case fresh
        /// Served at once; a background refresh is started.
        case staleWhileRevalidate
        /// Served only when a refetch fails or misses the deadline.
        case staleIfError
        /// Never served.
        case expired
    }

    public func phase(at now: Date) -> Phase {
        if now < freshUntil { return .fresh }
        if now < revalidateUntil { return .staleWhileRevalidate }
        if now < expiresAt { return .staleIfError }
        return .expired
    }

    public func ageSeconds(at now: Date) -> Int {
        max(0, Int(now.timeIntervalSince(fetchedAt).rounded(.down)))
    }
}
