import Foundation
import Model
import OpenAPIKit

/// The calendars' part of `/v1/sources`: each calendar (name, where from, colour) with its own
/// health (each feed is fetched on its own).
public struct ICSSourcesPart: SourcesPart {
    struct Calendar: Encodable, Sendable {
        var name: String
        var source: String
        @Nullable var color: String?
    }

    public var detailSchemas: [String: JSONSchema] {
        [
            "calendars": .array(
                description: "ics only: each subscribed calendar.", items: ICSSchemas.calendarSource.reference)
        ]
    }

    public var detailComponents: [SchemaComponent] { [ICSSchemas.calendarSource] }

    public func details(_ input: SourcesInput) async -> [String: JSONValue] {
        let calendars = (input.profile.ics?.calendars ?? []).map {
            ScopedSourceHealth(
                Calendar(name: $0.name, source: $0.shownSource, color: $0.color), health: input.health($0.name))
        }
        return ["calendars": (try? JSONValue(encoding: calendars)) ?? .array([])]
    }
}
