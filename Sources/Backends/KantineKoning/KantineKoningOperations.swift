import Foundation
import Model

/// `kantinekoning.diensten`: the diensten of every enrollment, merged: deduplicated by id
/// (newer `updated_at` wins, one with `updated_at` beats one without, else the later one when
/// it starts no earlier), future ascending then past descending, each tagged with tenant, team
/// and the strongest role that sees it. A refused enrollment is reported beside the data.
public struct KantineKoningDienstenOperation: BackendOperation {
    public static let maximumDays = 366

    public init() {}
    public var name: String { "kantinekoning.diensten" }
    public var bodySchema: SchemaComponent? { KantineKoningSchemas.dienstList }
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

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try await KantineKoningClient.make(context)
        let zone = context.timeZone
        var pastDays = arguments["past_days"]?.int ?? 7
        var futureDays = arguments["future_days"]?.int ?? 60
        let day = arguments["date"]?.date
        if let day {
            let offset = context.today.days(to: day)
            pastDays = max(0, -offset + 1)
            futureDays = max(0, offset + 1)
        }
        var issues: [SectionIssue] = []
        var active: [KantineKoningSettings.Enrollment] = []
        for enrollment in client.settings.enrollments {
            if await client.isSeasonOver(enrollment.tenant) {
                issues.append(
                    SectionIssue(
                        scope: enrollment.label, code: "season_ended",
                        message: "the season at \(enrollment.tenant) has ended"))
            } else {
                active.append(enrollment)
            }
        }
        let enrollments = active
        let (past, future) = (pastDays, futureDays)
        let results = await withTaskGroup(of: (Int, KantineKoningClient.EnrollmentResult).self) { group in
            for (index, enrollment) in enrollments.enumerated() {
                group.addTask { (index, await client.diensten(for: enrollment, pastDays: past, futureDays: future)) }
            }
            var collected: [(Int, KantineKoningClient.EnrollmentResult)] = []
            for await result in group { collected.append(result) }
            return collected.sorted { $0.0 < $1.0 }
        }
        var seen: [(KantineKoningSettings.Enrollment, [JSONValue])] = []
        var failures: [BackendError] = []
        for (index, result) in results {
            let enrollment = active[index]
            switch result {
            case .diensten(let rows): seen.append((enrollment, rows))
            case .tokenRefused(let code, let message, _):
                issues.append(SectionIssue(scope: enrollment.label, code: code, message: message))
            case .failed(let error):
                failures.append(error)
                issues.append(SectionIssue(scope: enrollment.label, code: error.kind.rawValue, message: error.message))
            }
        }
        if seen.isEmpty, let first = failures.first, failures.count == active.count {
            throw first
        }
        var merged = Self.merge(seen, zone: zone, now: context.now)
        if let day {
            let interval = day.interval(in: zone)
            merged = merged.filter { dienst in
                guard let start = LenientDate.parse(dienst.start) else { return false }
                return interval.contains(start) && start != interval.end
            }
        }
        return try OperationOutput(encoding: merged, issues: issues)
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
                guard let existing = byID[candidate.id] else {
                    byID[candidate.id] = Candidate(dienst: candidate, start: start, updated: updated)
                    order.append(candidate.id)
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
                byID[candidate.id] = kept
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
    public var bodySchema: SchemaComponent? { KantineKoningSchemas.leaderboard }
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
        do {
            value = try await client.get(
                "/leaderboard?" + QueryString.encode([("tenant", tenant), ("period", period)]), enrollment: enrollment)
        } catch let error as KantineKoningTokenError {
            throw BackendError(
                .rejected, backend: backend, message: "\(enrollment.label): \(error.message)", status: 401)
        }
        let entries = (LenientList.items(in: value, keys: ["teams"]) ?? []).compactMap { row -> LeaderboardEntry? in
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
        return try OperationOutput(encoding: entries)
    }
}
