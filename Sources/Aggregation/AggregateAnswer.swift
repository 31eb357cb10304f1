import Foundation
import Model

/// An aggregated answer and what the HTTP layer needs to describe it.
public struct AggregateAnswer: Sendable {
    /// 200 when any section has data; 504 when every section timed out; 502 otherwise.
    public var status: Int
    public var body: Data
    public var complete: Bool
    public var stale: Bool
    public var ageSeconds: Int
    /// Smallest remaining freshness, when every section is fresh.
    public var maxAge: Int?
    public var sections: [String: SectionReport]
}
