import Foundation
import Logging
import Model

/// `GET /v1/household/summary`: every member's `/v1/summary` (the same cache entries and kept
/// answers' sections), one object per member under `members` keyed by the member's id, for Home
/// Assistant sensors per person (`value_json.members.anna.plan_open`):
///
/// ```json
/// {"date": "2026-11-27", "timezone": "Europe/Amsterdam", "household": {"name": "De Vries"},
///  "members": {"anna": {"name": "Anna", "color": "#2563eb", "plan_open": 3, …}},
///  "complete": true, "stale": false, "age_seconds": 4}
/// ```
///
/// A member's object is their summary (every key always present) with `name` and `color`, and
/// without `date` and `timezone` (given once at the top). A personal section (`SummarySection.optIn`,
/// such as the day's meals) is read only for members who share it (`share: [nutrition]`); for
/// the others its keys are null.
public struct HouseholdSummaryService: Sendable {
    public static let path = "/v1/household/summary"

    public let summary: SummaryService

    public init(summary: SummaryService) {
        self.summary = summary
    }

    public struct ResolvedRequest: Sendable {
        public var household: HouseholdConfig
        public var members: [Aggregator.ResolvedRequest]
        public var clock: RequestClock

        /// The household's, whoever asks; a new day is a new answer.
        public var answerKey: String {
            "\u{1}household\u{0}" + HouseholdSummaryService.path + "\u{0}" + clock.today.description
        }
    }

    /// 404 `no_household` without a household; the summary takes no parameters.
    public func resolve(query: [(String, String)]) throws(ErrorDetail) -> ResolvedRequest {
        guard let household = summary.aggregator.config.household else { throw .noHousehold }
        if let (name, _) = query.first(where: { !$0.0.hasPrefix("_") }) {
            throw .badParameter("unknown parameter \"\(RouteParameter.shown(name))\" for \(Self.path) (it takes none)")
        }
        let clock = summary.aggregator.clock()
        var members: [Aggregator.ResolvedRequest] = []
        for member in household.members {
            var request = try summary.aggregator.resolve(
                route: summary.route, query: [], profileName: member.profile, clock: clock)
            request.route.sections = request.route.sections.filter { !$0.optIn || member.share.contains($0.name) }
            members.append(request)
        }
        return ResolvedRequest(household: household, members: members, clock: clock)
    }

    public func run(_ request: ResolvedRequest, forceRefresh: Bool = false, logger: Logger? = nil)
        async throws(ErrorDetail) -> AggregateAnswer
    {
        let summary = self.summary
        let results = await withTaskGroup(of: (Int, Result<AggregateAnswer, ErrorDetail>).self) { group in
            for (index, member) in request.members.enumerated() {
                group.addTask {
                    do throws(ErrorDetail) {
                        return (
                            index, .success(try await summary.run(member, forceRefresh: forceRefresh, logger: logger))
                        )
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var collected = [Result<AggregateAnswer, ErrorDetail>?](repeating: nil, count: request.members.count)
            for await (index, result) in group { collected[index] = result }
            return collected
        }
        var totals = HouseholdAnswer.Totals()
        var members: [String: Data] = [:]
        var stableMembers: [String: Data] = [:]
        for (index, member) in request.household.members.enumerated() {
            let answer: AggregateAnswer
            switch results[index]! {
            case .success(let value): answer = value
            case .failure(let error): throw error
            }
            totals.add(answer, of: member.id)
            members[member.id] = Self.memberObject(answer.body, member: member)
            stableMembers[member.id] = Self.memberObject(answer.validatorBody, member: member)
        }
        var fields: [String: Data] = [
            "date": Data(JSONValue.quoted(request.clock.today.description).utf8),
            "timezone": Data(JSONValue.quoted(request.clock.timeZone.identifier).utf8),
        ]
        var about: [String: Data] = [:]
        if let name = request.household.name { about["name"] = Data(JSONValue.quoted(name).utf8) }
        fields["household"] = JSONObjectWriter.object(about)
        var validatorFields = fields
        fields["members"] = JSONObjectWriter.object(members)
        validatorFields["members"] = JSONObjectWriter.object(stableMembers)
        var answer = totals.answer(fields: fields, validatorFields: validatorFields)
        // A summary is always an answer (nulls and each section's error when a backend is down).
        answer.status = 200
        return answer
    }

    static func memberObject(_ body: Data, member: HouseholdConfig.Member) -> Data {
        var fields: [String: Data] = [:]
        if case .object(let object)? = try? JSONValue(parsing: body) {
            for (key, value) in object.fields where key != "date" && key != "timezone" {
                fields[key] = Data(value.serialized.utf8)
            }
        }
        fields["name"] = Data(JSONValue.quoted(member.name).utf8)
        fields["color"] = Data(JSONValue.quoted(member.color).utf8)
        return JSONObjectWriter.object(fields)
    }
}
