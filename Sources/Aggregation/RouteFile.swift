import Foundation
import Model

/// A route file as written in `routes/*.yaml`, before validation against the operations.
///
/// ```yaml
/// path: /v1/events
/// description: 8alls events of a local day or a range of days
/// deadline: 2s
/// refresh_on_start: true
/// parameters:
///   date: { type: date, default: today, default_unless_given: [from, to] }
///   from: { type: date }
///   type: { type: string, max_length: 50 }
/// sections:
///   events:
///     operation: eightalls.events
///     arguments: { date: $date, from: $from, event_type: $type }
///     ttl: 60s
///   subscribed:
///     operation: ics.events
///     arguments: { date: $date, from: $from, to: $to }
///     merge_into: events
/// ```
public struct RouteFile: Sendable, Codable, Hashable {
    public var path: String
    public var description: String?
    public var deadline: ConfigDuration?
    public var parameters: [String: ParameterFile]?
    public var sections: [String: SectionFile]
    /// Present on a household route (`/v1/household/…`): its sections run for every member of
    /// the configured household, and the answer is the household's (`HouseholdFile`).
    public var household: HouseholdFile?
    /// Fetched again for every profile with its default parameters once the gateway listens
    /// (`StartRefreshService`): the connections and sessions its sections need are open and
    /// proven before the first client asks, and what the cache kept from before the start is
    /// brought up to date.
    public var refreshOnStart: Bool?

    enum CodingKeys: String, CodingKey {
        case path, description, deadline, parameters, sections, household
        case refreshOnStart = "refresh_on_start"
    }

    /// ```yaml
    /// household:
    ///   combine: [events]   # these lists, every member's together, each item marked with its member
    /// ```
    public struct HouseholdFile: Sendable, Codable, Hashable {
        /// Sections (keeping their own key) whose lists are joined across members into one
        /// top-level list; an item several members have (a shared calendar's event) appears once.
        public var combine: [String]?
    }

    public struct ParameterFile: Sendable, Codable, Hashable {
        public var type: String
        public var description: String?
        /// A literal, or for dates `today`, `today+N`, `today-N`.
        public var `default`: JSONValue?
        /// The default applies only when none of these parameters is given.
        public var defaultUnlessGiven: [String]?
        public var min: Int?
        public var max: Int?
        public var maxLength: Int?
        public var values: [String]?
        /// A value /openapi.json shows as the parameter's example; a path parameter's names
        /// nothing the backend has (the OpenAPI test expects 404 for it).
        public var example: JSONValue?
        /// A path parameter's real values: `<route path>#<JSON pointer>` into that route's answer
        /// (`/v1/knowledge/recent#/items/0/id`), an OpenAPI link in /openapi.json.
        public var valuesFrom: String?

        enum CodingKeys: String, CodingKey {
            case type, description, `default`
            case defaultUnlessGiven = "default_unless_given"
            case min, max
            case maxLength = "max_length"
            case values, example
            case valuesFrom = "values_from"
        }
    }

    public struct SectionFile: Sendable, Codable, Hashable {
        public var operation: String
        /// Argument name → `$parameter` or a literal.
        public var arguments: [String: JSONValue]?
        public var ttl: ConfigDuration?
        /// Another section of the route whose list this section's list joins (`events` from
        /// several calendars): the answer has one key, ordered by `start`; each section keeps
        /// its own report under `sections`.
        public var mergeInto: String?
        /// On a household route: the section runs only for members who list its name in
        /// `household.members[].share` (what is personal, such as meals, is shared by choice).
        public var optIn: Bool?

        enum CodingKeys: String, CodingKey {
            case operation, arguments, ttl
            case mergeInto = "merge_into"
            case optIn = "opt_in"
        }
    }
}
