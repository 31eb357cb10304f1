import Backends
import Foundation
import Logging
import Model

/// Keys of a household answer itself: its route's parameters and combined lists may not take
/// them.
public enum HouseholdAnswerKeys {
    public static let reserved: Set<String> = [
        "members", "household", "timezone", "complete", "stale", "age_seconds", "sections", "error",
    ]
}

/// Runs a household route (`Route.household`): its sections for every member of the configured
/// household at once, each member through the aggregator as their own route would be — the same
/// cache entries and the same single fetch in flight, so a member whose day is fresh costs no
/// upstream call — and one answer for all (`HouseholdAnswer`).
public struct HouseholdService: Sendable {
    public let aggregator: Aggregator

    public init(aggregator: Aggregator) {
        self.aggregator = aggregator
    }

    /// A household request with its parameters parsed once, at one moment, for every member.
    public struct ResolvedRequest: Sendable {
        public var route: Route
        public var household: HouseholdConfig
        public var values: [String: ArgumentValue]
        public var clock: RequestClock

        /// Names the answer: the household's, whoever asks (the `household` scope decides who may).
        public var answerKey: String {
            var key = "\u{1}household\u{0}" + route.path
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                key += "\u{0}" + name + "=" + value.description
            }
            return key
        }

        /// The member's own request: the route without the opt-in sections they do not share.
        func request(for member: HouseholdConfig.Member) -> Aggregator.ResolvedRequest {
            var route = self.route
            route.sections = route.sections.filter { !$0.optIn || member.share.contains($0.name) }
            return Aggregator.ResolvedRequest(route: route, profileName: member.profile, values: values, clock: clock)
        }
    }

    /// 404 `no_household` without a household in the config; 400 for a bad parameter.
    public func resolve(route: Route, query: [(String, String)], clock: RequestClock? = nil) throws(ErrorDetail)
        -> ResolvedRequest
    {
        guard let household = aggregator.config.household else { throw .noHousehold }
        let clock = clock ?? aggregator.clock()
        return ResolvedRequest(
            route: route, household: household,
            values: try aggregator.parameters(for: route, query: query, clock: clock),
            clock: clock)
    }

    public func run(_ request: ResolvedRequest, forceRefresh: Bool = false, logger: Logger? = nil)
        async throws(ErrorDetail) -> AggregateAnswer
    {
        let members = request.household.members
        let aggregator = self.aggregator
        let results = await withTaskGroup(of: (Int, Result<AggregateAnswer, ErrorDetail>).self) { group in
            for (index, member) in members.enumerated() {
                let memberRequest = request.request(for: member)
                group.addTask {
                    do throws(ErrorDetail) {
                        return (
                            index,
                            .success(
                                try await aggregator.run(memberRequest, forceRefresh: forceRefresh, logger: logger))
                        )
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var collected = [Result<AggregateAnswer, ErrorDetail>?](repeating: nil, count: members.count)
            for await (index, result) in group { collected[index] = result }
            return collected
        }
        var answers: [HouseholdAnswer.MemberAnswer] = []
        for (index, member) in members.enumerated() {
            // A parameter every member's sections refuse (the same arguments for all): the request's error.
            switch results[index]! {
            case .success(let answer):
                answers.append(
                    HouseholdAnswer.MemberAnswer(
                        member: member, profile: aggregator.config.profiles[member.profile],
                        route: request.request(for: member).route,
                        answer: answer))
            case .failure(let error): throw error
            }
        }
        return HouseholdAnswer.compose(
            values: request.values, household: request.household, combine: request.route.household?.combine ?? [],
            members: answers, timeZone: request.clock.timeZone)
    }
}

extension ErrorDetail {
    /// A household route, summary or stream asked of a gateway whose config names no household
    /// (the gateway answers it as a 404).
    public static let noHousehold = ErrorDetail(
        code: "no_household", message: "no household is configured (household: in the config names its members)")
}
