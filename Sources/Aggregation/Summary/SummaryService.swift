import Backends
import Foundation
import Logging
import Model

/// Runs `/v1/summary` for a profile: a built-in route (today's plan and completed tasks, the
/// coming week of events, upcoming diensten, today's nutrition) through the aggregator and
/// its cache, then `Summary` over the sections. Always an answer: with every backend down it
/// is 200 with nulls, `complete: false` and each section's error.
public struct SummaryService: Sendable {
    public static let path = "/v1/summary"
    /// How far ahead `next_event_*` looks.
    public static let eventDays = 7
    public static let dienstDays = 60

    public let aggregator: Aggregator
    public let route: Route

    public init(aggregator: Aggregator, registry: OperationRegistry = .standard) {
        self.aggregator = aggregator
        self.route = Self.route(registry: registry)
    }

    static func route(registry: OperationRegistry) -> Route {
        func section(_ name: String, _ operation: String, _ arguments: [String: RouteSection.Binding]) -> RouteSection?
        {
            registry[operation].map { RouteSection(name: name, operation: $0, arguments: arguments, ttl: nil) }
        }
        return Route(
            path: path, file: "(built in)", description: "The day as flat values for home automation.",
            deadline: Route.defaultDeadline,
            parameters: [
                RouteParameter(name: "date", kind: .date, defaultValue: .today(offset: 0)),
                RouteParameter(name: "until", kind: .date, defaultValue: .today(offset: eventDays - 1)),
            ],
            sections: [
                section("plan", "tickedify.daily_plan", ["date": .parameter("date")]),
                section("completed", "tickedify.completed", ["date": .parameter("date")]),
                section("events", "eightalls.events", ["from": .parameter("date"), "to": .parameter("until")]),
                section(
                    "diensten", "kantinekoning.diensten",
                    ["past_days": .literal(.int(0)), "future_days": .literal(.int(dienstDays))]),
                section("nutrition", "fitiq.nutrition", ["date": .parameter("date")]),
            ].compactMap { $0 }
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
        let zone = request.clock.timeZone
        let now = request.clock.now
        let date = request.values["date"]?.date ?? request.clock.today
        var answer = try await aggregator.run(request, forceRefresh: forceRefresh, logger: logger)
        let summary = Summary(answer: answer, date: date, zone: zone, now: now)
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
        return answer
    }
}
