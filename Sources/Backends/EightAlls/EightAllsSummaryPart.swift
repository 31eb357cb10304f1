import Foundation
import Model
import OpenAPIKit

/// 8alls' part of `/v1/summary`: the coming week of events, for the household's calendar keys
/// (`events`, `next_event_*`), which the summary derives from every calendar's events.
public struct EightAllsSummaryPart: SummaryPart {
    public var sections: [SummarySection] {
        [
            SummarySection(
                name: "events", operation: EightAllsEventsOperation().name, arguments: ["from": .date, "to": .until])
        ]
    }

    /// No keys of its own: the core derives the calendar keys from its events.
    public var keySchemas: [String: JSONSchema] { [:] }

    public func summarize(_ input: SummaryInput) -> SummaryValues {
        SummaryValues(events: input.decode([Event].self, "events"))
    }
}
