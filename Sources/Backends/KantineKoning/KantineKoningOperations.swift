import Foundation
import Model

/// `kantinekoning.diensten`: the diensten of every enrollment, merged: deduplicated by id
/// (newer `updated_at` wins, one with `updated_at` beats one without, else the later one when
/// it starts no earlier), future ascending then past descending, each tagged with tenant, team
/// and the strongest role that sees it. A refused enrollment is reported beside the data.
public struct KantineKoningDienstenOperation: BackendOperation {
    /// The farthest `past_days` and `future_days` (local days from today). The server looks back
    /// 365 days by default (the app's repository README, docs/backends/kantinekoning.md), counted
    /// from its own now; no source states a cap on `future_days`, so the same 365 is assumed
    /// ahead. daygate asks one day more than the window reaches, so 364 keeps every asked day
    /// inside those 365 — never a silently empty last day.
    public static let maximumDays = 364

    public init() {}
    public var name: String { "kantinekoning.diensten" }
    public var bodySchema: SchemaComponent { KantineKoningSchemas.dienstList }
    public var backend: String { KantineKoningClient.backend }
    public var defaultTTL: TimeInterval { 300 }
    public var arguments: [OperationArgument] {
        [
            OperationArgument("past_days", .int), OperationArgument("future_days", .int),
            OperationArgument("date", .date),
        ]
    }
    public func isConfigured(for profile: ProfileConfig) -> Bool { profile.kantinekoning != nil }
    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        profile.kantinekoning.map(KantineKoningClient.fingerprint) ?? CredentialFingerprint.none
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        var result: [String: ArgumentValue] = [
            "past_days": .int(arguments["past_days"]?.int ?? 7),
            "future_days": .int(arguments["future_days"]?.int ?? 60),
        ]
        for name in ["past_days", "future_days"] {
            guard let days = result[name]?.int, (0...Self.maximumDays).contains(days) else {
                throw ErrorDetail.badParameter("\(name) must be between 0 and \(Self.maximumDays)")
            }
        }
        // With `date`, only the diensten of that local day (for /v1/today).
        if let date = arguments["date"] { result["date"] = date }
        return result
    }

    /// Every enrollment is asked for `future_days` ahead (no `past_days`: the app no longer
    /// sends it and the server looks back 365 days by default); whatever the server answers,
    /// only the diensten starting in the asked local window are kept (`window`).
    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try await KantineKoningClient.make(context)
        let zone = context.timeZone
        let window = Self.window(arguments, today: context.today, zone: zone)
        // Ask as far ahead as the window reaches (a day more: the server counts from its now).
        let futureDays = max(0, context.today.days(to: window.last) + 1)
        let enrollments = client.settings.enrollments
        let results = await withTaskGroup(of: (Int, KantineKoningClient.EnrollmentResult).self) { group in
            for (index, enrollment) in enrollments.enumerated() {
                group.addTask { (index, await client.diensten(for: enrollment, futureDays: futureDays)) }
            }
            var collected: [(Int, KantineKoningClient.EnrollmentResult)] = []
            for await result in group { collected.append(result) }
            return collected.sorted { $0.0 < $1.0 }
        }
        var issues: [SectionIssue] = []
        var seen: [(KantineKoningSettings.Enrollment, [JSONValue])] = []
        var failures: [BackendError] = []
        var called = 0
        for (index, result) in results {
            let enrollment = enrollments[index]
            switch result {
            case .diensten(let rows):
                called += 1
                seen.append((enrollment, rows))
            case .skipped(let code, let message):
                issues.append(SectionIssue(scope: enrollment.label, code: code, message: message))
            case .tokenRefused(let code, let message, _):
                called += 1
                issues.append(SectionIssue(scope: enrollment.label, code: code, message: message))
            case .failed(let error):
                called += 1
                failures.append(error)
                issues.append(SectionIssue(scope: enrollment.label, code: error.kind.rawValue, message: error.message))
            }
        }
        if seen.isEmpty, let first = failures.first, failures.count == called {
            throw first
        }
        return try OperationOutput(
            encoding: Self.kept(seen, window: window, zone: zone, now: context.now), issues: issues)
    }

    /// The diensten the enrollments saw, merged (`merge`), of those starting in the local days
    /// of `window`.
    static func kept(
        _ seen: [(KantineKoningSettings.Enrollment, [JSONValue])], window: (first: LocalDate, last: LocalDate),
        zone: TimeZone, now: Date
    ) -> [Dienst] {
        let interval = DateInterval(
            start: window.first.start(in: zone), end: window.last.adding(days: 1).start(in: zone))
        return merge(rows(of: seen, near: interval), zone: zone, now: now).filter { dienst in
            guard let start = LenientDate.parse(dienst.start) else { return false }
            return interval.contains(start) && start != interval.end
        }
    }

    /// The rows whose dienst may be kept: those of a club and id with some row starting within a
    /// minute of `interval` (the merged dienst of an id is one of its rows, and a start is
    /// compared as written back, to the second). The server answers a year back; `/v1/today`
    /// keeps one day of it, so the rest is not made into diensten only to be dropped.
    static func rows(
        of seen: [(KantineKoningSettings.Enrollment, [JSONValue])], near interval: DateInterval
    ) -> [(KantineKoningSettings.Enrollment, [JSONValue])] {
        let near = DateInterval(
            start: interval.start.addingTimeInterval(-60), end: interval.end.addingTimeInterval(60))
        var keys: [[String?]] = []
        var wanted: Set<String> = []
        for (enrollment, rows) in seen {
            keys.append(
                rows.map { row in
                    guard let fields = LenientFields(row), let id = fields.string("id") else { return nil }
                    let key = (fields.string("tenant_id", "tenant") ?? enrollment.tenant) + "|" + id
                    if let start = fields.string("start_tijd", "start").flatMap({ LenientDate.parse($0) }),
                        near.contains(start)
                    {
                        wanted.insert(key)
                    }
                    return key
                })
        }
        return zip(seen, keys).map { pair, keys in
            (pair.0, zip(pair.1, keys).compactMap { row, key in key.map(wanted.contains) == true ? row : nil })
        }
    }

    /// The local days asked for: `date` alone, or `past_days` before today to `future_days`
    /// after it.
    static func window(_ arguments: [String: ArgumentValue], today: LocalDate, zone: TimeZone) -> (
        first: LocalDate, last: LocalDate
    ) {
        if let day = arguments["date"]?.date { return (day, day) }
        let past = arguments["past_days"]?.int ?? 7
        let future = arguments["future_days"]?.int ?? 60
        return (today.adding(days: -past), today.adding(days: future))
    }

    /// Dedup and order per the app's rules (docs/backends/kantinekoning.md, "Several enrollments").
    static func merge(_ seen: [(KantineKoningSettings.Enrollment, [JSONValue])], zone: TimeZone, now: Date) -> [Dienst]
    {
        struct Candidate {
            var dienst: Dienst
            var start: Date
            var updated: Date?
        }
        var byID: [String: Candidate] = [:]
        var order: [String] = []
        for (enrollment, rows) in seen {
            for row in rows {
                guard let candidate = dienst(row, enrollment: enrollment, zone: zone) else { continue }
                let updated = candidate.updatedAt.flatMap { LenientDate.parse($0) }
                let start = LenientDate.parse(candidate.start) ?? .distantPast
                // Keyed by club and id: the app dedups by id alone, but each club is a database
                // schema of its own, and nothing says two clubs' ids cannot meet.
                let key = candidate.tenant + "|" + candidate.id
                guard let existing = byID[key] else {
                    byID[key] = Candidate(dienst: candidate, start: start, updated: updated)
                    order.append(key)
                    continue
                }
                let role = existing.dienst.role == "manager" || candidate.role == "manager" ? "manager" : "member"
                let replace: Bool =
                    switch (updated, existing.updated) {
                    case (let new?, let old?): new > old
                    case (.some, nil): true
                    case (nil, .some): false
                    case (nil, nil): start >= existing.start
                    }
                var kept = replace ? Candidate(dienst: candidate, start: start, updated: updated) : existing
                kept.dienst.role = role
                byID[key] = kept
            }
        }
        let all = order.compactMap { byID[$0] }
        let future = all.filter { $0.start >= now }.sorted { ($0.start, $0.dienst.id) < ($1.start, $1.dienst.id) }
        let past = all.filter { $0.start < now }.sorted { ($0.start, $0.dienst.id) > ($1.start, $1.dienst.id) }
        return (future + past).map(\.dienst)
    }

    static func dienst(_ row: JSONValue, enrollment: KantineKoningSettings.Enrollment, zone: TimeZone) -> Dienst? {
        guard let fields = LenientFields(row), let id = fields.string("id"),
            let start = fields.string("start_tijd", "start").flatMap({ LenientDate.parse($0) }),
            let end = fields.string("eind_tijd", "end").flatMap({ LenientDate.parse($0) })
        else { return nil }
        let team = fields.value("team").flatMap(LenientFields.init).flatMap { team -> Dienst.Team? in
            guard let id = team.string("id") else { return nil }
            return Dienst.Team(
                id: id, code: team.string("code"), name: team.string("naam", "name") ?? team.string("code") ?? id)
        }
        let kind = fields.value("dienst_type").flatMap(LenientFields.init).flatMap { type -> Dienst.Kind? in
            type.string("naam", "name").map { Dienst.Kind(name: $0, icon: type.string("icon")) }
        }
        return Dienst(
            id: id, tenant: fields.string("tenant_id", "tenant") ?? enrollment.tenant, team: team,
            start: LenientDate.format(start, in: zone), end: LenientDate.format(end, in: zone),
            location: fields.string("locatie_naam", "location"), type: kind,
            status: fields.string("status") ?? "ingepland",
            volunteers: fields.strings("aanmeldingen", "volunteers") ?? [],
            volunteersNeeded: fields.int("minimum_bemanning", "volunteers_needed") ?? 0, role: enrollment.role,
            offeredForTransfer: fields.bool("offered_for_transfer") ?? false,
            updatedAt: fields.string("updated_at").flatMap { LenientDate.parse($0) }.map {
                LenientDate.format($0, in: .gmt)
            }
        )
    }
}

/// `kantinekoning.leaderboard`: a club's team ranking (`tenant`, `period` week|month|season).
public struct KantineKoningLeaderboardOperation: BackendOperation {
    public static let periods = ["week", "month", "season"]
    public init() {}
    public var name: String { "kantinekoning.leaderboard" }
    public var bodySchema: SchemaComponent { KantineKoningSchemas.leaderboard }
    public var backend: String { KantineKoningClient.backend }
    public var defaultTTL: TimeInterval { 3600 }
    public var arguments: [OperationArgument] {
        [OperationArgument("tenant", .string), OperationArgument("period", .string)]
    }
    public func isConfigured(for profile: ProfileConfig) -> Bool { profile.kantinekoning != nil }
    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        profile.kantinekoning.map(KantineKoningClient.fingerprint) ?? CredentialFingerprint.none
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        let period = arguments["period"]?.string ?? "season"
        guard Self.periods.contains(period) else {
            throw ErrorDetail.badParameter("period must be one of \(Self.periods.joined(separator: ", "))")
        }
        var result: [String: ArgumentValue] = ["period": .string(period)]
        result["tenant"] = arguments["tenant"]
        return result
    }

    public func validate(_ arguments: [String: ArgumentValue], for profile: ProfileConfig) throws {
        // Connected enrollments (in the vault) are checked when the call is made.
        guard let tenant = arguments["tenant"]?.string, let enrollments = profile.kantinekoning?.enrollments,
            !enrollments.isEmpty
        else {
            return
        }
        guard enrollments.contains(where: { $0.tenant == tenant }) else {
            throw ErrorDetail.badParameter(
                "no enrollment at tenant \(tenant.prefix(40)); known: \(Set(enrollments.map(\.tenant)).sorted().joined(separator: ", "))"
            )
        }
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try await KantineKoningClient.make(context)
        let enrollments = client.settings.enrollments
        let tenant = arguments["tenant"]?.string ?? enrollments[0].tenant
        // The tenant token is the last enrollment's at that tenant, as in the app.
        guard let enrollment = enrollments.last(where: { $0.tenant == tenant }) else {
            throw ErrorDetail.badParameter(
                "no enrollment at tenant \(tenant); known: \(Set(enrollments.map(\.tenant)).sorted().joined(separator: ", "))"
            )
        }
        let period = arguments["period"]?.string ?? "season"
        let value: JSONValue
        if let refusal = await client.gate(enrollment) {
            throw BackendError(
                .rejected, backend: backend, message: "\(enrollment.label): \(refusal.message) (\(refusal.code))",
                status: 401)
        }
        do {
            value = try await client.get(
                "/leaderboard?" + QueryString.encode([("tenant", tenant), ("period", period)]), enrollment: enrollment)
        } catch let error as KantineKoningTokenError {
            await client.refused(enrollment, error)
            throw BackendError(
                .rejected, backend: backend, message: "\(enrollment.label): \(error.message)", status: 401)
        }
        return try OperationOutput(encoding: Self.entries(value))
    }

    /// The ranking in a `/leaderboard` answer; rows without a rank or a team are left out.
    static func entries(_ value: JSONValue) -> [LeaderboardEntry] {
        (LenientList.items(in: value, keys: ["teams"]) ?? []).compactMap { row -> LeaderboardEntry? in
            guard let fields = LenientFields(row), let rank = fields.int("rank"),
                let team = fields.value("team").flatMap(LenientFields.init), let teamID = team.string("id")
            else { return nil }
            let hours = fields.value("total_hours")?.numberValue ?? 0
            return LeaderboardEntry(
                rank: rank,
                team: Dienst.Team(id: teamID, code: team.string("code"), name: team.string("naam", "name") ?? teamID),
                points: fields.int("points") ?? 0, totalHours: hours, recentChange: fields.int("recent_change") ?? 0,
                positionChange: fields.int("position_change") ?? 0, highlighted: fields.bool("highlighted") ?? false
            )
        }
    }
}
