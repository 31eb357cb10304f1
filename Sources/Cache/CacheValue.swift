import Foundation

/// What one entry holds: the section's JSON body and, optionally, metadata stored beside it
/// (the section's issues as JSON).
public struct CacheValue: Sendable, Hashable {
    public var body: Data
    public var meta: Data?

    public init(body: Data, meta: Data? = nil) {
        self.body = body
        self.meta = meta
    }

    var size: Int { body.count + (meta?.count ?? 0) }
}
