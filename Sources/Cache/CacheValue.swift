import Foundation

/// What one entry holds: the section's JSON body and, optionally, metadata stored beside it
/// (the section's issues as JSON).
public struct CacheValue: Sendable, Hashable {
    public var body: Data
    public var meta: Data?
    /// Seconds the fetch that brought it says it may be fresh at most (less than the policy's
    /// TTL); nil for the TTL. It shapes the entry's windows when it is stored, and is not part
    /// of what the entry holds: two values with the same body and metadata are equal.
    public var freshFor: TimeInterval?

    public init(body: Data, meta: Data? = nil, freshFor: TimeInterval? = nil) {
        self.body = body
        self.meta = meta
        self.freshFor = freshFor
    }

    var size: Int { body.count + (meta?.count ?? 0) }

    public static func == (lhs: CacheValue, rhs: CacheValue) -> Bool {
        lhs.body == rhs.body && lhs.meta == rhs.meta
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(body)
        hasher.combine(meta)
    }
}
