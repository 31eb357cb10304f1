import Foundation
import Model
import OpenAPIKit

/// The calendars' part of `/v1/summary`: their events of the coming week join the household's
/// calendar keys (`events`, `next_event_*`).
public struct ICSSummaryPart: SummaryPart {
    public var sections: [SummarySection] {
        [
            SummarySection(
                name: "subscribed_events", operation: ICSEventsOperation().name,
                arguments: ["from": .date, "to": .until])
        ]
    }

    /// No keys of its own: its events feed the core's calendar keys.
    public var keySchemas: [String: JSONSchema] { [:] }

    public func summarize(_ input: SummaryInput) -> SummaryValues {
        SummaryValues(events: input.decode([Event].self, "subscribed_events"))
    }
}
