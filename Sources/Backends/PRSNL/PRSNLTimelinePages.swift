import Foundation
import Model

/// One timeline page read once for the sections that ask for it together: `/v1/knowledge/recent`
/// answers the items (`prsnl.timeline`) and PRSNL's `next_cursor` (`prsnl.timeline_cursor`)
/// from one `GET /api/timeline`. A page is shared only while its fetch is on its way (a write
/// that invalidates the timeline is never answered with a page read before it), per account.
actor PRSNLTimelinePages {
    private var running: [String: Task<JSONValue, any Error>] = [:]

    /// The pages of the account `scope`, shared by every request.
    static func shared(_ registry: SessionRegistry, scope: AccountScope) -> PRSNLTimelinePages {
        registry.shared("prsnl|timeline|\(scope)") { PRSNLTimelinePages() }
    }

    /// The page for `limit` and `cursor`: the fetch on its way for it, else a new one.
    func page(limit: Int, cursor: String?, fetch: @escaping @Sendable () async throws -> JSONValue) async throws
        -> JSONValue
    {
        let key = "\(limit)|\(cursor ?? "")"
        if let task = running[key] {
            return try await SharedFlight.value(of: task, backend: PRSNLSettings.backend, what: "the timeline page")
        }
        let task = Task(executorPreference: TaskPlacement.preferred) { try await fetch() }
        running[key] = task
        defer { running[key] = nil }
        return try await SharedFlight.value(of: task, backend: PRSNLSettings.backend, what: "the timeline page")
    }
}
