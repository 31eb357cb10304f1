import Backends
import Foundation
import Model
import Testing

@testable import Aggregation

/// An operation whose items are shared across members when they carry the same `uid`.
struct SharedListOperation: BackendOperation {
    let name: String
    var backend: String { "calendar" }
    var defaultTTL: TimeInterval { 60 }
    var bodySchema: SchemaComponent { .anyJSON }
    var arguments: [OperationArgument] { [] }
    func isConfigured(for profile: ProfileConfig) -> Bool { true }
    func credentialFingerprint(for profile: ProfileConfig) -> String { "none" }
    func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        arguments
    }
    func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        OperationOutput(body: Data("[]".utf8))
    }
    func sharedIdentity(of item: JSONValue, for profile: ProfileConfig) -> String? {
        item["uid"]?.stringValue
    }
}

/// `HouseholdAnswer.compose` without a cache or a backend: members' answers in, the
/// household's out.
@Suite("The household's answer")
struct HouseholdAnswerTests {
    static let own = SharedListOperation(name: "calendar.own")
    static let subscribed = SharedListOperation(name: "calendar.subscribed")
    static let route = Route(
        path: "/v1/household/today", file: "test", description: nil, deadline: 2, parameters: [],
        sections: [
            RouteSection(name: "events", operation: own, arguments: [:], ttl: nil),
            RouteSection(name: "subscribed", operation: subscribed, arguments: [:], ttl: nil, mergeInto: "events"),
        ], household: .init(combine: ["events"]))

    static func member(
        _ id: String, own: String?, subscribed: String?, status: Int = 200, complete: Bool = true, stale: Bool = false,
        age: Int = 0
    ) -> HouseholdAnswer.MemberAnswer {
        var bodies: [String: Data] = [:]
        if let own { bodies["events"] = Data(own.utf8) }
        if let subscribed { bodies["subscribed"] = Data(subscribed.utf8) }
        let report = SectionReport(
            status: complete ? .ok : .error, cache: stale ? .stale : .hit, ageSeconds: age, backend: "calendar")
        let body =
            #"{"complete":\#(complete),"date":"2026-03-29","events":[],"sections":{"events":{}},"stale":\#(stale),"x":1}"#
        return HouseholdAnswer.MemberAnswer(
            member: .init(profile: "p-" + id, id: id, name: id.capitalized, color: "#000000"),
            profile: ProfileConfig(), route: route,
            answer: AggregateAnswer(
                status: status, body: Data(body.utf8), validatorBody: Data(body.utf8), complete: complete, stale: stale,
                ageSeconds: age, maxAge: complete ? 30 : nil, sections: ["events": report], lookups: [:],
                sectionBodies: bodies, reusableUntil: nil))
    }

    static func compose(_ members: [HouseholdAnswer.MemberAnswer]) throws -> (AggregateAnswer, JSONValue) {
        let answer = HouseholdAnswer.compose(
            values: ["date": .date(LocalDate("2026-03-29")!)],
            household: HouseholdConfig(name: "Home", members: members.map(\.member)), combine: ["events"],
            members: members, timeZone: TimeZone(identifier: "Pacific/Auckland")!)
        return (answer, try JSONValue(parsing: answer.body))
    }

    @Test func itemsAreMarkedWithTheirMemberAndSharedOnesAppearOnce() throws {
        let (_, body) = try Self.compose([
            Self.member(
                "anna", own: #"[{"start":"2026-03-29T09:00:00Z","title":"Standup","uid":null}]"#,
                subscribed: #"[{"start":"2026-03-29T08:00:00Z","title":"School photo","uid":"s1"}]"#),
            Self.member(
                "bas", own: nil,
                subscribed:
                    #"[{"start":"2026-03-29T08:00:00Z","title":"School photo","uid":"s1"},{"start":"2026-03-29T07:00:00Z","title":"Gym","uid":"b1"}]"#
            ),
            Self.member(
                "mila", own: nil, subscribed: #"[{"start":"2026-03-29T08:00:00Z","title":"School photo","uid":"s1"}]"#),
        ])
        let events = try #require(body["events"]?.arrayValue)
        #expect(events.map { $0["title"]?.stringValue } == ["Gym", "School photo", "Standup"], "by start")
        #expect(events[0]["member"] == .string("bas") && events[0]["shared"] == nil)
        #expect(events[1]["members"] == .array([.string("anna"), .string("bas"), .string("mila")]))
        #expect(events[1]["shared"] == .bool(true) && events[1]["member"] == nil)
        #expect(events[2]["member"] == .string("anna"))
        let members = try #require(body["members"]?.arrayValue)
        #expect(members.map { $0["id"]?.stringValue } == ["anna", "bas", "mila"])
        #expect(members[0]["events"] == nil && members[0]["date"] == nil, "combined lists and parameters at the top")
        #expect(
            members[0]["x"] == .int(1) && members[0]["name"] == .string("Anna")
                && members[0]["profile"] == .string("p-anna"))
        #expect(body["date"] == .string("2026-03-29"))
        #expect(body["household"]?["name"] == .string("Home"))
        #expect(body["timezone"] == .string("Pacific/Auckland"))
    }

    @Test func withoutStartsTheMembersOrderIsKept() throws {
        let (_, body) = try Self.compose([
            Self.member("anna", own: #"[{"title":"b"},{"title":"a"}]"#, subscribed: nil),
            Self.member("bas", own: #"[{"title":"c"}]"#, subscribed: nil),
        ])
        #expect(body["events"]?.arrayValue?.map { $0["title"]?.stringValue } == ["b", "a", "c"])
        let (_, none) = try Self.compose([Self.member("anna", own: nil, subscribed: nil)])
        #expect(none["events"] == .null, "no member has the list")
    }

    @Test func completenessStalenessAgeAndStatusAreEveryMembers() throws {
        let (fine, fineBody) = try Self.compose([
            Self.member("anna", own: "[]", subscribed: nil, age: 3),
            Self.member("bas", own: "[]", subscribed: nil, age: 9),
        ])
        #expect(fine.status == 200 && fine.complete && !fine.stale && fine.ageSeconds == 9 && fine.maxAge == 30)
        #expect(fineBody["age_seconds"] == .int(9) && fineBody["complete"] == .bool(true))
        #expect(Set(fine.sections.keys) == ["anna.events", "bas.events"])
        let (mixed, _) = try Self.compose([
            Self.member("anna", own: "[]", subscribed: nil, stale: true),
            Self.member("bas", own: nil, subscribed: nil, status: 502, complete: false),
        ])
        #expect(mixed.status == 200 && !mixed.complete && mixed.stale && mixed.maxAge == nil)
        let (down, _) = try Self.compose([
            Self.member("anna", own: nil, subscribed: nil, status: 504, complete: false),
            Self.member("bas", own: nil, subscribed: nil, status: 502, complete: false),
        ])
        #expect(down.status == 502)
        let (slow, _) = try Self.compose([Self.member("anna", own: nil, subscribed: nil, status: 504, complete: false)])
        #expect(slow.status == 504)
    }

    @Test func theValidatorLeavesOutTheAge() throws {
        let (young, _) = try Self.compose([Self.member("anna", own: "[]", subscribed: nil, age: 1)])
        let (old, _) = try Self.compose([Self.member("anna", own: "[]", subscribed: nil, age: 50)])
        #expect(young.body != old.body)
        #expect(young.validatorBody == old.validatorBody)
    }
}
