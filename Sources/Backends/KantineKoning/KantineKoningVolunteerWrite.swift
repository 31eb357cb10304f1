import Foundation
import Model

/// `POST /v1/diensten/{id}/volunteers {"name"}` and `DELETE /v1/diensten/{id}/volunteers/{name}`
/// → 200 `{"dienst"}` (`KantineKoningVolunteers`: managers only, future diensten only, 1–15
/// characters, no duplicate). The cached diensten are now wrong.
public struct KantineKoningVolunteerWrite: BackendWrite {
    public enum Kind: Sendable { case add, remove }

    public let kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
    }

    public var method: WriteMethod { kind == .add ? .post : .delete }
    public var path: String { kind == .add ? "/v1/diensten/{id}/volunteers" : "/v1/diensten/{id}/volunteers/{name}" }
    public var fields: Set<String>? { kind == .add ? ["name"] : nil }

    public func check(_ request: WriteRequest) throws {
        _ = try request.parameter("id")
        switch kind {
        case .add: _ = try request.string("name")
        case .remove: _ = try request.parameter("name")
        }
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        let id = try request.parameter("id")
        let tenant = request.query["tenant"]
        let dienst =
            switch kind {
            case .add:
                try await KantineKoningVolunteers.add(
                    name: request.string("name"), toDienst: id, tenant: tenant, context: context)
            case .remove:
                try await KantineKoningVolunteers.remove(
                    name: request.parameter("name"), fromDienst: id, tenant: tenant, context: context)
            }
        return try WriteResult(
            status: 200, encoding: ["dienst": dienst], invalidations: invalidationsIfItMayHaveHappened(request))
    }

    /// The cached diensten, also after a change whose outcome is unknown (it may have landed).
    public func invalidationsIfItMayHaveHappened(_ request: WriteRequest) -> [CacheInvalidation] {
        [.all(KantineKoningDienstenOperation().name)]
    }
}
