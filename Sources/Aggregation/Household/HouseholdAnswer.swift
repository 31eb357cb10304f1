import Backends
import Foundation
import Model

/// The household's answer, put together from every member's own answer (pure: tested without
/// sockets).
///
/// ```json
/// {
///   "date": "2026-11-27", "timezone": "Europe/Amsterdam",
///   "household": {"name": "De Vries", "night": "22:30-06:30"},
///   "events": [{"title": "…", "member": "anna"}, {"title": "Sports day", "members": ["anna", "bas"], "shared": true}],
///   "members": [{"id": "anna", "name": "Anna", "color": "#2563eb", "complete": true, "stale": false,
///                "age_seconds": 3, "sections": {…}, "plan": […], "diensten": […]}],
///   "complete": true, "stale": false, "age_seconds": 3
/// }
/// ```
///
/// - Each member is their own answer to the route (the same sections, statuses, ages and errors
///   as their own day) without the parameters (given once at the top) and without the combined
///   lists, which are at the top: every member's items together, each marked with its `member`;
///   items several members have (the same `sharedIdentity`: a calendar they all subscribe to)
///   appear once, marked `shared` with their `members`. Ordered by `start` when every item has
///   one (ties keep the members' order), else by member.
/// - `complete` when every member is; `stale` when any is; `age_seconds` the oldest.
/// - 200 when any member's answer has data, else 504 when every member timed out, else 502.
public enum HouseholdAnswer {
    /// One member's own answer to the route and what reading it needs.
    public struct MemberAnswer: Sendable {
        public var member: HouseholdConfig.Member
        /// The member's profile (nil only if the config changed under the request).
        public var profile: ProfileConfig?
        /// The route as run for this member (their opt-in sections only).
        public var route: Route
        public var answer: AggregateAnswer

        public init(member: HouseholdConfig.Member, profile: ProfileConfig?, route: Route, answer: AggregateAnswer) {
            self.member = member
            self.profile = profile
            self.route = route
            self.answer = answer
        }
    }

    public static func compose(
        values: [String: ArgumentValue], household: HouseholdConfig, combine: [String], members: [MemberAnswer],
        timeZone: TimeZone
    ) -> AggregateAnswer {
        var fields: [String: Data] = ["timezone": Data(JSONValue.quoted(timeZone.identifier).utf8)]
        for (name, value) in values {
            fields[name] = Data(JSONValue.quoted(value.description).utf8)
        }
        var about: [String: Data] = [:]
        if let name = household.name { about["name"] = Data(JSONValue.quoted(name).utf8) }
        if let night = household.wall.night { about["night"] = Data(JSONValue.quoted(night.description).utf8) }
        fields["household"] = JSONObjectWriter.object(about)
        for name in combine {
            fields[name] = combined(name, members: members)
        }
        var validatorFields = fields

        let dropped = Set(values.keys).union(combine)
        var totals = Totals()
        var memberBodies: [Data] = []
        var memberValidators: [Data] = []
        for item in members {
            memberBodies.append(memberObject(item.answer.body, member: item.member, dropping: dropped))
            memberValidators.append(memberObject(item.answer.validatorBody, member: item.member, dropping: dropped))
            totals.add(item.answer, of: item.member.id)
        }
        fields["members"] = array(memberBodies)
        validatorFields["members"] = array(memberValidators)
        return totals.answer(fields: fields, validatorFields: validatorFields)
    }

    /// What the members' answers come to together: one section report and lookup per member and
    /// section (`anna.plan`, for `Cache-Status` and `Server-Timing`), `complete` when every member
    /// is, `stale` when any is, the oldest age, the shortest freshness, and reusable only while
    /// every member's answer is (from the earliest cache generation read).
    struct Totals {
        var sections: [String: SectionReport] = [:]
        var lookups: [String: SectionLookup] = [:]
        var sectionBodies: [String: Data] = [:]
        var complete = true
        var stale = false
        var age = 0
        var maxAge: Int? = nil
        var reusableUntil: Date? = .distantFuture
        var reuses: [SectionReuse] = []
        var generation = UInt64.max
        var statuses: [Int] = []

        mutating func add(_ answer: AggregateAnswer, of id: String) {
            for (name, report) in answer.sections { sections[id + "." + name] = report }
            for (name, lookup) in answer.lookups { lookups[id + "." + name] = lookup }
            for (name, body) in answer.sectionBodies { sectionBodies[id + "." + name] = body }
            complete = complete && answer.complete
            stale = stale || answer.stale
            age = max(age, answer.ageSeconds)
            if let memberMaxAge = answer.maxAge { maxAge = min(maxAge ?? memberMaxAge, memberMaxAge) }
            if let until = answer.reusableUntil, let soonest = reusableUntil {
                reusableUntil = min(soonest, until)
                reuses += answer.reuses
            } else {
                reusableUntil = nil
            }
            generation = min(generation, answer.generation)
            statuses.append(answer.status)
        }

        /// The answer with `fields` as its body (`complete`, `stale` and `age_seconds` added;
        /// the validator without the age).
        func answer(fields: [String: Data], validatorFields: [String: Data]) -> AggregateAnswer {
            var fields = fields
            var validatorFields = validatorFields
            fields["complete"] = Data((complete ? "true" : "false").utf8)
            fields["stale"] = Data((stale ? "true" : "false").utf8)
            validatorFields["complete"] = fields["complete"]
            validatorFields["stale"] = fields["stale"]
            fields["age_seconds"] = Data(String(age).utf8)
            let status =
                statuses.isEmpty || statuses.contains(200) ? 200 : statuses.allSatisfy { $0 == 504 } ? 504 : 502
            let reusable = reusableUntil.flatMap { $0 == .distantFuture ? nil : $0 }
            return AggregateAnswer(
                status: status, body: JSONObjectWriter.object(fields),
                validatorBody: JSONObjectWriter.object(validatorFields), complete: complete, stale: stale,
                ageSeconds: age, maxAge: complete && !stale ? maxAge : nil, sections: sections, lookups: lookups,
                sectionBodies: sectionBodies, reusableUntil: reusable, reuses: reusable == nil ? [] : reuses,
                generation: generation == .max ? 0 : generation)
        }
    }

    /// A member's answer as a member of the household's: their id, name and colour added, the
    /// route's parameters and combined lists taken out (both are at the top).
    static func memberObject(_ body: Data, member: HouseholdConfig.Member, dropping dropped: Set<String>) -> Data {
        var fields: [String: Data] = [:]
        // A member's answer is the gateway's own JSON object (or, for a member with a single
        // section whose backend says "not found", its error body, whose `error` is kept).
        if case .object(let object)? = try? JSONValue(parsing: body) {
            for (key, value) in object.fields where !dropped.contains(key) {
                fields[key] = Data(value.serialized.utf8)
            }
        }
        fields["id"] = Data(JSONValue.quoted(member.id).utf8)
        fields["profile"] = Data(JSONValue.quoted(member.profile).utf8)
        fields["name"] = Data(JSONValue.quoted(member.name).utf8)
        fields["color"] = Data(JSONValue.quoted(member.color).utf8)
        return JSONObjectWriter.object(fields)
    }

    /// Every member's items of the list `name` (the section of that name and those merged into
    /// it), each marked with its member; items with one shared identity once, with all their
    /// members. `null` when no member has the list.
    static func combined(_ name: String, members: [MemberAnswer]) -> Data {
        struct Entry {
            var item: JSONValue
            var object: JSONObject
            var members: [String]
        }
        var entries: [Entry] = []
        var byIdentity: [String: Int] = [:]
        var any = false
        for member in members {
            let id = member.member.id
            for section in member.route.sections where section.name == name || section.mergeInto == name {
                guard let body = member.answer.sectionBodies[section.name],
                    case .array(let items)? = try? JSONValue(parsing: body)
                else { continue }
                any = true
                for item in items {
                    guard case .object(let object) = item else { continue }
                    let identity = member.profile.flatMap { section.operation.sharedIdentity(of: item, for: $0) }
                    if let identity, let index = byIdentity[identity] {
                        if !entries[index].members.contains(id) { entries[index].members.append(id) }
                        continue
                    }
                    if let identity { byIdentity[identity] = entries.count }
                    entries.append(Entry(item: item, object: object, members: [id]))
                }
            }
        }
        guard any else { return Data("null".utf8) }
        let items = StartOrder.sorted(entries) { StartOrder.start(of: $0.item) }.map { entry -> JSONValue in
            var fields = entry.object.fields.filter { !["member", "members", "shared"].contains($0.0) }
            if entry.members.count > 1 {
                fields.append(("members", .array(entry.members.map { .string($0) })))
                fields.append(("shared", .bool(true)))
            } else {
                fields.append(("member", .string(entry.members[0])))
            }
            // Keys in the gateway's order (UTF-8 bytes), as every body it writes.
            fields.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            return .object(JSONObject(fields: fields))
        }
        return Data(JSONValue.array(items).serialized.utf8)
    }

    static func array(_ items: [Data]) -> Data {
        var output = Data("[".utf8)
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(item)
        }
        output.append(UInt8(ascii: "]"))
        return output
    }
}
