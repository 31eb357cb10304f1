import Foundation
import Model

/// `eightalls.events`: the events of a local day (`date`) or of the local days `from`…`to`
/// (at most 366), optionally filtered by `event_type` and `status`. The local days become
/// one UTC range upstream; the answer is filtered to true overlaps and sorted by start.
public struct EightAllsEventsOperation: BackendOperation {
    public static let maximumDays = 366

    public init() {}

    public var name: String { "eightalls.events" }
    public var bodySchema: SchemaComponent { EightAllsSchemas.eventList }
    public var backend: String { EightAllsClient.backend }
    public var defaultTTL: TimeInterval { 60 }
    public var arguments: [OperationArgument] {
        [
            OperationArgument("date", .date),
            OperationArgument("from", .date),
            OperationArgument("to", .date),
            OperationArgument("event_type", .string),
            OperationArgument("status", .string),
        ]
    }

    public func isConfigured(for profile: ProfileConfig) -> Bool {
        profile.eightalls != nil
    }

    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        CredentialFingerprint.none
    }

    /// 8alls has no accounts: members whose settings name the same server read one calendar,
    /// so an event of it is one event on the household's answer (the server and the event's id).
    public func sharedIdentity(of item: JSONValue, for profile: ProfileConfig) -> String? {
        guard let id = item["id"]?.stringValue, let server = profile.eightalls?.endpoint.baseURL else { return nil }
        return "eightalls:" + CredentialFingerprint.of(["eightalls-server", server.lowercased()]) + ":" + id
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        let days = try LocalDayRange(arguments, today: clock.today, maximumDays: Self.maximumDays)
        var normalised: [String: ArgumentValue] = ["from": .date(days.first), "to": .date(days.last)]
        normalised["event_type"] = arguments["event_type"]
        normalised["status"] = arguments["status"]
        return normalised
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        guard let endpoint = context.profile.eightalls?.endpoint else {
            throw BackendError(
                .notConfigured, backend: backend, message: "8alls is not configured for profile \(context.profileName)")
        }
        guard let from = arguments["from"]?.date, let to = arguments["to"]?.date else {
            throw ErrorDetail.badParameter("from and to are required")
        }
        let window = DateInterval(
            start: from.start(in: context.timeZone), end: to.adding(days: 1).start(in: context.timeZone))
        let client = EightAllsClient(endpoint: endpoint, http: context.http, profile: context.profileName)
        let events = try await client.events(
            start: window.start, end: window.end, eventType: arguments["event_type"]?.string,
            status: arguments["status"]?.string
        )
        return try OperationOutput(encoding: Self.unified(events, window: window, zone: context.timeZone))
    }

    /// The events overlapping `window`, by start, as unified events in `zone`.
    static func unified(_ events: [EightAllsEvent], window: DateInterval, zone: TimeZone) -> [Event] {
        events
            .filter { $0.overlaps(window) }
            .sorted { ($0.start, $0.end, $0.title) < ($1.start, $1.end, $1.title) }
            .map { $0.unified(in: zone) }
    }
}
