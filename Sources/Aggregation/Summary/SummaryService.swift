import Backends
import Foundation
import Logging
import Model

/// Runs `/v1/summary` for a profile: a built-in route made of the sections each backend's
/// `SummaryPart` asks for (today's plan and completed tasks, the coming week of events,
/// upcoming diensten, today's nutrition) through the aggregator and its cache, then `Summary`
/// over the sections. Always an answer: with every backend down it
/// is 200 with nulls, `complete: false` and each section's error.
public struct SummaryService: Sendable {
    public static let path = "/v1/summary"
    /// How far ahead `next_event_*` looks.
    public static let eventDays = 7

    public let aggregator: Aggregator
    public let route: Route
    let parts: [any SummaryPart]

    /// - Parameter deadline: how long the summary waits for its sections (seconds; a route's
    ///   default). Tests with scripted backends that answer at once give one only a hang reaches,
    ///   so a busy machine cannot turn their answers into timeouts.
    public init(
        aggregator: Aggregator, registry: OperationRegistry = .standard,
        parts: [any SummaryPart] = BackendCatalog.summaryParts, deadline: TimeInterval = Route.defaultDeadline
    ) {
        self.aggregator = aggregator
        self.parts = parts
        self.route = Self.route(registry: registry, parts: parts, deadline: deadline)
    }

    /// The sections every part asks for, over `date` and the week from it (`until`).
    static func route(registry: OperationRegistry, parts: [any SummaryPart], deadline: TimeInterval) -> Route {
        let sections = parts.flatMap(\.sections).compactMap { section -> RouteSection? in
            guard let operation = registry[section.operation] else { return nil }
            return RouteSection(
                name: section.name, operation: operation,
                arguments: section.arguments.mapValues { argument in
                    switch argument {
                    case .date: .parameter("date")
                    case .until: .parameter("until")
                    case .literal(let value): .literal(value)
                    }
                }, ttl: nil, optIn: section.optIn)
        }
        return Route(
            path: path, file: "(built in)", description: "The day as flat values for home automation.",
            deadline: deadline,
            parameters: [
                RouteParameter(name: "date", kind: .date, defaultValue: .today(offset: 0)),
                RouteParameter(name: "until", kind: .date, defaultValue: .today(offset: eventDays - 1)),
            ],
            sections: sections
        )
    }

    /// The summary takes no parameters: only names starting with `_` (cache-busting), which are
    /// ignored. Its own `date` and `until` are always their defaults.
    public static func checkQuery(_ query: [(String, String)]) throws(ErrorDetail) {
        if let (name, _) = query.first(where: { !$0.0.hasPrefix("_") }) {
            throw .badParameter("unknown parameter \"\(RouteParameter.shown(name))\" for \(path) (it takes none)")
        }
    }

    /// The request the summary answers for `profileName` now (its key names the kept answer).
    public func resolve(profileName: String) throws(ErrorDetail) -> Aggregator.ResolvedRequest {
        try aggregator.resolve(route: route, query: [], profileName: profileName)
    }

    /// The summary as an answer: its body is the `Summary` JSON (status always 200).
    public func run(profileName: String, forceRefresh: Bool, logger: Logger? = nil) async throws(ErrorDetail)
        -> AggregateAnswer
    {
        try await run(resolve(profileName: profileName), forceRefresh: forceRefresh, logger: logger)
    }

    public func run(_ request: Aggregator.ResolvedRequest, forceRefresh: Bool, logger: Logger? = nil)
        async throws(ErrorDetail) -> AggregateAnswer
    {
        let date = request.values["date"]?.date ?? request.clock.today
        let made = try await aggregator.run(request, forceRefresh: forceRefresh, logger: logger)
        return Self.summary(of: made, parts: parts, date: date, zone: request.clock.timeZone, now: request.clock.now)
    }

    /// The route's answer `made` as the summary at `now`; aged again as the summary of the route's
    /// answer aged again (what is next read at the later moment too).
    static func summary(
        of made: AggregateAnswer, parts: [any SummaryPart], date: LocalDate, zone: TimeZone, now: Date
    ) -> AggregateAnswer {
        var answer = made
        let summary = Summary(answer: answer, parts: parts, date: date, zone: zone, now: now)
        var stable = summary
        stable.ageSeconds = 0
        stable.sections = summary.sections.mapValues(\.withoutPerResponseFields)
        answer.status = 200
        answer.body = (try? JSONCoding.encode(summary)) ?? Data("{}".utf8)
        answer.validatorBody = (try? JSONCoding.encode(stable)) ?? answer.body
        // The summary reads the clock itself (what is next): reusable as long as every section
        // is, and only until the next event or dienst starts.
        if let until = answer.reusableUntil, let changesAt = summary.changesAt {
            answer.reusableUntil = changesAt > now ? min(until, changesAt) : nil
        }
        if let reaged = made.reaged, answer.reusableUntil != nil {
            answer.reaged = { at in
                reaged(at).map { Self.summary(of: $0, parts: parts, date: date, zone: zone, now: at) }
            }
        }
        return answer
    }
}
