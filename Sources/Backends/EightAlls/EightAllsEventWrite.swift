import Foundation
import Model

/// The event endpoints: `POST /v1/events` → 201 `{"event"}`, `PUT /v1/events/{id}` (a partial
/// update) → 200 `{"event"}`, `DELETE /v1/events/{id}` → 200 `{"deleted"}` (`EightAllsEventWrites`).
/// Each drops the cached event lists whose days (`from`…`to`) meet a local day the event
/// covered before or after the change, and no others.
public struct EightAllsEventWrite: BackendWrite {
    public enum Kind: Sendable { case create, update, delete }

    public let kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
    }

    public var method: WriteMethod {
        switch kind {
        case .create: .post
        case .update: .put
        case .delete: .delete
        }
    }

    public var path: String { kind == .create ? "/v1/events" : "/v1/events/{id}" }
    public var fields: Set<String>? { kind == .delete ? nil : EventInput.fields }

    public func check(_ request: WriteRequest) throws {
        if kind != .delete { _ = try EventInput(json: request.body) }
    }

    public func perform(_ request: WriteRequest, context: OperationContext) async throws -> WriteResult {
        switch kind {
        case .create:
            let outcome = try await EightAllsEventWrites.create(EventInput(json: request.body), context: context)
            return try WriteResult(
                status: 201, encoding: ["event": outcome.event], invalidations: [Self.invalidation(outcome, context)])
        case .update:
            let id = try request.parameter("id")
            let outcome = try await EightAllsEventWrites.update(
                id: id, EventInput(json: request.body), context: context)
            return try WriteResult(
                status: 200, encoding: ["event": outcome.event], invalidations: [Self.invalidation(outcome, context)])
        case .delete:
            let id = try request.parameter("id")
            let outcome = try await EightAllsEventWrites.delete(id: id, context: context)
            return try WriteResult(
                status: 200, encoding: ["deleted": ["id": id]], invalidations: [Self.invalidation(outcome, context)])
        }
    }

    static func invalidation(_ outcome: EightAllsEventWrites.Outcome, _ context: OperationContext)
        -> CacheInvalidation
    {
        invalidation(touching: outcome.touched, zone: context.timeZone)
    }

    /// The cached event lists (`from`…`to`) that meet a local day one of `spans` covers.
    public static func invalidation(touching spans: [DateInterval], zone: TimeZone) -> CacheInvalidation {
        let days = spans.map { span in
            (
                LocalDate(containing: span.start, in: zone),
                LocalDate(containing: max(span.start, span.end.addingTimeInterval(-0.001)), in: zone)
            )
        }
        return CacheInvalidation(EightAllsEventsOperation().name) { arguments in
            guard let from = arguments["from"]?.date, let to = arguments["to"]?.date else { return true }
            return days.contains { first, last in from <= last && first <= to }
        }
    }
}
