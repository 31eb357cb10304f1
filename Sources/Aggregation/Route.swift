import Backends
import Foundation
import Model

/// A validated unified endpoint: parameters to parse, sections to fan out to.
public struct Route: Sendable {
    public var path: String
    public var file: String
    public var description: String?
    public var deadline: TimeInterval
    public var parameters: [RouteParameter]
    public var sections: [RouteSection]
    /// Set on a household route: its sections run for every member (`HouseholdService`).
    public var household: HouseholdShape?
    /// Fetched again for every profile once the gateway listens (`refresh_on_start`).
    public var refreshOnStart: Bool

    /// How a household route's answer is put together.
    public struct HouseholdShape: Sendable, Hashable {
        /// Sections whose lists are joined across members into one top-level list.
        public var combine: [String]

        public init(combine: [String] = []) {
            self.combine = combine
        }
    }

    public init(
        path: String, file: String, description: String?, deadline: TimeInterval, parameters: [RouteParameter],
        sections: [RouteSection], household: HouseholdShape? = nil, refreshOnStart: Bool = false
    ) {
        self.path = path
        self.file = file
        self.description = description
        self.deadline = deadline
        self.parameters = parameters
        self.sections = sections
        self.household = household
        self.refreshOnStart = refreshOnStart
    }

    /// The prefix of every household route's path (and of no other route's): the `household`
    /// scope is decided by it.
    public static let householdPrefix = "/v1/household/"

    /// The `{name}` segments of `path`, in path order: parameters taken from the path, not the
    /// query (always required; declared under `parameters:` like the others).
    public var pathParameterNames: [String] { Self.pathParameterNames(in: path) }

    public static func pathParameterNames(in path: String) -> [String] {
        path.split(separator: "/").compactMap { segment in
            segment.count > 2 && segment.hasPrefix("{") && segment.hasSuffix("}")
                ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    public static let defaultDeadline: TimeInterval = 2
    /// Top-level keys of every answer; parameters and sections may not use them.
    public static let reservedKeys: Set<String> = ["complete", "stale", "age_seconds", "sections", "error"]
}

/// One section: an operation and how its arguments are bound.
public struct RouteSection: Sendable {
    public enum Binding: Sendable, Hashable {
        case parameter(String)
        case literal(ArgumentValue)
    }

    public var name: String
    public var operation: any BackendOperation
    public var arguments: [String: Binding]
    public var ttl: TimeInterval?
    /// The section whose list this one's joins in the answer (`merge_into`), if any.
    public var mergeInto: String?
    /// On a household route: run only for members who share it (`opt_in`).
    public var optIn: Bool

    public init(
        name: String, operation: any BackendOperation, arguments: [String: Binding], ttl: TimeInterval?,
        mergeInto: String? = nil, optIn: Bool = false
    ) {
        self.name = name
        self.operation = operation
        self.arguments = arguments
        self.ttl = ttl
        self.mergeInto = mergeInto
        self.optIn = optIn
    }
}
