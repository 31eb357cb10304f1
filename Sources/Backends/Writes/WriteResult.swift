import Foundation
import Model

/// What a done write answers (status and JSON body) and which cache entries it made wrong.
public struct WriteResult: Sendable {
    public var status: Int
    public var body: Data
    public var invalidations: [CacheInvalidation]

    public init(status: Int, body: Data, invalidations: [CacheInvalidation]) {
        self.status = status
        self.body = body
        self.invalidations = invalidations
    }

    /// `value` encoded as the answer's body.
    public init(status: Int, encoding value: some Encodable, invalidations: [CacheInvalidation]) throws {
        self.init(status: status, body: try JSONCoding.encode(value), invalidations: invalidations)
    }
}
