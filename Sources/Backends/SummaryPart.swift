import Foundation
import Model
import OpenAPIKit

/// What one backend adds to `/v1/summary`: the sections the summary fetches for it and the
/// keys it derives from them. Every key a part writes is present in every answer (null, empty
/// or zero when the backend is not configured or failed), so Home Assistant templates never
/// break.
public protocol SummaryPart: Sendable {
    /// The sections the summary's built-in route fetches for this part (names unique across
    /// parts; they are the keys of the answer's `sections`).
    var sections: [SummarySection] { get }

    /// The schema of every key `summarize` writes, for /v1/summary's schema in /openapi.json.
    var keySchemas: [String: JSONSchema] { get }

    /// The components `keySchemas` refer to.
    var keyComponents: [SchemaComponent] { get }

    /// The part's keys, derived from the sections' bodies (absent when a section failed).
    func summarize(_ input: SummaryInput) -> SummaryValues
}

extension SummaryPart {
    public var keyComponents: [SchemaComponent] { [] }
}

/// One section of the summary route: an operation and its arguments.
public struct SummarySection: Sendable {
    /// An argument: the summary's day, the last day of its week ahead, or a fixed value.
    public enum Argument: Sendable {
        case date
        case until
        case literal(ArgumentValue)
    }

    public var name: String
    public var operation: String
    public var arguments: [String: Argument]
    /// Personal (a member's meals): on the household's summary only for members who share it
    /// (`household.members[].share` lists `name`).
    public var optIn: Bool

    public init(name: String, operation: String, arguments: [String: Argument], optIn: Bool = false) {
        self.name = name
        self.operation = operation
        self.arguments = arguments
        self.optIn = optIn
    }
}

/// What a part reads: the sections' bodies and the request's day and clock.
public struct SummaryInput: Sendable {
    public var bodies: [String: Data]
    public var date: LocalDate
    public var zone: TimeZone
    public var now: Date

    public init(bodies: [String: Data], date: LocalDate, zone: TimeZone, now: Date) {
        self.bodies = bodies
        self.date = date
        self.zone = zone
        self.now = now
    }

    /// The body of `section` as `T`, nil when the section has no (readable) body.
    public func decode<T: Decodable>(_ type: T.Type, _ section: String) -> T? {
        bodies[section].flatMap { try? JSONCoding.decoder.decode(T.self, from: $0) }
    }
}

/// What a part adds.
public struct SummaryValues: Sendable {
    /// Top-level keys: flat scalars for `value_template` and named objects for
    /// `json_attributes_path`.
    public var values: [String: JSONValue]
    /// Events for the household's calendar keys (`events`, `next_event_*`), which every
    /// calendar backend feeds; nil when this part has none.
    public var events: [Event]?
    /// When the clock alone changes these values (a dienst starts and stops being next).
    public var changesAt: Date?

    public init(values: [String: JSONValue] = [:], events: [Event]? = nil, changesAt: Date? = nil) {
        self.values = values
        self.events = events
        self.changesAt = changesAt
    }
}
