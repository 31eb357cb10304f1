import Foundation
import Model
import Synchronization

/// A team as the server knows it (id always resolved).
struct KantineKoningTeamRecord: Sendable, Equatable {
    var id: String
    var code: String
    var naam: String

    /// `{"code","id","naam"}`.
    var json: JSONValue {
        .object(["code": .string(code), "id": .string(id), "naam": .string(naam)])
    }

    /// True when `value` names this team by code or by id (the app sends either).
    func matches(_ value: String) -> Bool { value == code || value == id }
}

/// One row of a tenant's `diensten` table (with its `aanmeldingen`).
struct KantineKoningDienst: Sendable, Equatable {
    var id: String
    var tenantSlug: String
    var team: KantineKoningTeamRecord?
    /// Microseconds since 1970, UTC.
    var start: Int64
    var end: Int64
    var minimumBemanning: Int
    var status: String = "ingepland"
    var locatieNaam: String?
    var aanmeldingen: [String]
    var updatedAt: Int64
    var typeNaam: String
    var typeIcon: String
    var offeredForTransfer: Bool = false
    /// Seed order, the tie-breaker when start times are equal.
    var sequence: Int = 0

    /// The `Dienst` JSON, keys in Jason's order for a small Elixir map (alphabetical).
    var json: JSONValue {
        .object([
            "aanmeldingen": .array(aanmeldingen.map(JSONValue.string)),
            "aanmeldingen_count": .int(aanmeldingen.count),
            "dienst_type": .object(["icon": .string(typeIcon), "naam": .string(typeNaam)]),
            "eind_tijd": .string(KantineKoningTime.seconds(end)),
            "id": .string(id),
            "locatie_naam": locatieNaam.map(JSONValue.string) ?? .null,
            "minimum_bemanning": .int(minimumBemanning),
            "notification_token": .null,
            "offered_for_transfer": .bool(offeredForTransfer),
            "start_tijd": .string(KantineKoningTime.seconds(start)),
            "status": .string(status),
            "team": team?.json ?? .null,
            "tenant_id": .string(tenantSlug),
            "updated_at": .string(KantineKoningTime.micros(updatedAt)),
        ])
    }

    var hours: Double { Double(end - start) / Double(3600 * Civil.microsPerSecond) }
}

/// A verified token: the enrollment behind it with its teams resolved.
struct KantineKoningSession: Sendable {
    var enrollment: KantineKoningSimulator.Enrollment
    var deviceId: String
    var teams: [KantineKoningTeamRecord]
    var tenant: KantineKoningTenantRecord

    var isManager: Bool { enrollment.role == .manager }

    func covers(_ team: KantineKoningTeamRecord?) -> Bool {
        guard let team else { return false }
        return teams.contains { $0.id == team.id }
    }
}

/// A tenant as the server knows it.
struct KantineKoningTenantRecord: Sendable {
    var slug: String
    var name: String
    var teams: [KantineKoningTeamRecord]
    var seasonEnded: Bool
    var leaderboardOptOut: Bool
    var clubLogoURL: String?
    /// Seeded season hours per team id before the seeded window.
    var baseSeasonHours: [String: Double]
    var positionChange: [String: Int]
}

enum KantineKoningAuth: Sendable {
    case ok(KantineKoningSession)
    case invalid
    case deviceNotFound
    case revoked(String)
}

/// The simulator's in-memory database, safe to use from any task.
final class KantineKoningStore: Sendable {
    private struct TokenState {
        var enrollment: KantineKoningSimulator.Enrollment
        var deviceId: String
        var revokedReason: String?
        var deleted = false
    }

    /// An injected failure of the volunteer writes (`POST /_sim/writes/fail`).
    struct WriteFault: Sendable, Equatable {
        var status: Int
        /// How many more writes fail.
        var remaining: Int
        /// True: the change is made, then the error answered (a write whose answer was lost).
        var afterWrite: Bool
    }

    private struct State {
        var diensten: [String: KantineKoningDienst] = [:]
        var tenants: [String: KantineKoningTenantRecord] = [:]
        var tenantOrder: [String] = []
        var tokens: [String: TokenState] = [:]
        var tokenOrder: [String] = []
        var fixedNow: Int64?
        var writeFault: WriteFault?
        /// Links sent by `POST /enrollments/request`, by their token.
        var links: [String: EnrollmentLink] = [:]
        /// The `jti`s of the self-made member tokens already registered (each works once).
        var usedJTIs: Set<String> = []
        /// Every e-mail sent, oldest first (`GET /_sim/mail`).
        var mail: [EnrollmentLink] = []
    }

    /// A magic link as `POST /enrollments/request` sends it.
    struct EnrollmentLink: Sendable {
        var token: String
        var email: String
        var tenant: String
        var teamIDs: [String]
        var expires: Int64
        var used = false
    }

    private let state: Mutex<State>
    let options: KantineKoningSimulator.Options
    /// Whole days added to the real clock so that today in the zone is the seed day.
    let shiftMicros: Int64

    init(options: KantineKoningSimulator.Options) throws {
        guard let (y, m, d) = Civil.parseDay(options.seedDay) else {
            throw SimulatorError.invalidSeedDay(options.seedDay)
        }
        var slugs = Set<String>()
        for tenant in options.tenants {
            guard !tenant.slug.isEmpty, slugs.insert(tenant.slug).inserted else {
                throw SimulatorError.startFailed("kantinekoning: tenant slug '\(tenant.slug)' is empty or duplicated")
            }
        }
        var tokens = Set<String>()
        for enrollment in options.enrollments {
            guard slugs.contains(enrollment.tenant) else {
                throw SimulatorError.startFailed(
                    "kantinekoning: enrollment '\(enrollment.label)' names unknown tenant '\(enrollment.tenant)'")
            }
            guard !enrollment.token.isEmpty, tokens.insert(enrollment.token).inserted else {
                throw SimulatorError.startFailed(
                    "kantinekoning: enrollment '\(enrollment.label)' has an empty or duplicated token")
            }
        }
        self.options = options
        let today = LocalDate.today(in: options.timeZone)
        shiftMicros = Int64(Civil.days(year: y, month: m, day: d) - today.dayNumber) * Civil.microsPerDay
        let fixed = options.now.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded(.down)) }
        self.state = Mutex(State(fixedNow: fixed))
        reseed()
    }

    /// Reloads the seeded diensten, tenants and token states from the options (the clock stays).
    func reseed() {
        let seed = KantineKoningSeed.build(options: options)
        state.withLock { s in
            s.diensten = Dictionary(uniqueKeysWithValues: seed.diensten.map { ($0.id, $0) })
            s.tenants = Dictionary(uniqueKeysWithValues: seed.tenants.map { ($0.slug, $0) })
            s.tenantOrder = seed.tenants.map(\.slug)
            s.tokens = [:]
            s.tokenOrder = []
            s.writeFault = nil
            s.links = [:]
            s.usedJTIs = []
            s.mail = []
            for enrollment in options.enrollments {
                s.tokens[enrollment.token] = TokenState(
                    enrollment: enrollment,
                    deviceId: SeedRandom.uuid(seed: "kantinekoning|device|\(enrollment.token)"),
                    revokedReason: enrollment.revokedReason
                )
                s.tokenOrder.append(enrollment.token)
            }
        }
    }

    // MARK: - Clock

    /// The simulator's current instant in microseconds since 1970 (UTC).
    var now: Int64 {
        if let fixed = state.withLock({ $0.fixedNow }) { return fixed }
        return Int64((Date().timeIntervalSince1970 * 1_000_000).rounded(.down)) + shiftMicros
    }

    func setNow(_ micros: Int64?) {
        state.withLock { $0.fixedNow = micros }
    }

    var isClockFixed: Bool { state.withLock { $0.fixedNow != nil } }

    // MARK: - Auth

    func verify(token: String) -> KantineKoningAuth {
        state.withLock { s in
            guard let t = s.tokens[token], let tenant = s.tenants[t.enrollment.tenant] else { return .invalid }
            if t.deleted { return .deviceNotFound }
            if tenant.seasonEnded { return .revoked("season_ended") }
            if let reason = t.revokedReason { return .revoked(reason) }
            var teams: [KantineKoningTeamRecord] = []
            for code in t.enrollment.teamCodes {
                if let team = tenant.teams.first(where: { $0.matches(code) }), !teams.contains(team) {
                    teams.append(team)
                }
            }
            return .ok(
                KantineKoningSession(enrollment: t.enrollment, deviceId: t.deviceId, teams: teams, tenant: tenant))
        }
    }

    // MARK: - Reads and writes

    func tenant(_ slug: String) -> KantineKoningTenantRecord? {
        state.withLock { $0.tenants[slug] }
    }

    var tenants: [KantineKoningTenantRecord] {
        state.withLock { s in s.tenantOrder.compactMap { s.tenants[$0] } }
    }

    /// Diensten passing `filter`, by start time ascending.
    func diensten(where filter: (KantineKoningDienst) -> Bool) -> [KantineKoningDienst] {
        state.withLock { s in
            s.diensten.values.filter(filter).sorted { ($0.start, $0.sequence) < ($1.start, $1.sequence) }
        }
    }

    func dienst(_ id: String) -> KantineKoningDienst? {
        state.withLock { $0.diensten[id] }
    }

    /// Runs `body` on the stored dienst under the lock; nil when it does not exist.
    func update<R>(_ id: String, _ body: (inout KantineKoningDienst) -> R) -> R? {
        state.withLock { s in
            guard var dienst = s.diensten[id] else { return nil }
            let result = body(&dienst)
            s.diensten[id] = dienst
            return result
        }
    }

    // MARK: - Control

    var writeFault: WriteFault? {
        get { state.withLock { $0.writeFault } }
        set { state.withLock { $0.writeFault = newValue } }
    }

    /// The fault for this write, counted down; nil when writes are not failing.
    func takeWriteFault() -> WriteFault? {
        state.withLock { s in
            guard var fault = s.writeFault, fault.remaining > 0 else { return nil }
            fault.remaining -= 1
            s.writeFault = fault.remaining > 0 ? fault : nil
            return fault
        }
    }

    func revoke(token: String, reason: String) -> Bool {
        state.withLock { s in
            guard s.tokens[token] != nil else { return false }
            s.tokens[token]?.revokedReason = reason
            return true
        }
    }

    func forget(token: String) -> Bool {
        state.withLock { s in
            guard s.tokens[token] != nil else { return false }
            s.tokens[token]?.deleted = true
            return true
        }
    }

    /// Ends the season of `slug`: every token of that tenant is revoked with `season_ended`.
    /// Returns how many tokens that affected, or nil for an unknown tenant.
    func endSeason(_ slug: String) -> Int? {
        state.withLock { s in
            guard s.tenants[slug] != nil else { return nil }
            s.tenants[slug]?.seasonEnded = true
            var count = 0
            for token in s.tokenOrder where s.tokens[token]?.enrollment.tenant == slug {
                s.tokens[token]?.revokedReason = "season_ended"
                count += 1
            }
            return count
        }
    }

    var enrollmentsJSON: JSONValue {
        state.withLock { s in
            .object([
                "enrollments": .array(
                    s.tokenOrder.compactMap { token in
                        guard let t = s.tokens[token] else { return nil }
                        let status: String
                        if t.deleted {
                            status = "device_not_found"
                        } else if s.tenants[t.enrollment.tenant]?.seasonEnded == true {
                            status = "revoked:season_ended"
                        } else if let reason = t.revokedReason {
                            status = "revoked:\(reason)"
                        } else {
                            status = "active"
                        }
                        return .object([
                            "label": .string(t.enrollment.label),
                            "tenant": .string(t.enrollment.tenant),
                            "role": .string(t.enrollment.role.rawValue),
                            "team_codes": .array(t.enrollment.teamCodes.map(JSONValue.string)),
                            "device_id": .string(t.deviceId),
                            "status": .string(status),
                            "token": .string(token),
                        ])
                    }
                )
            ])
        }
    }

    var dienstCount: Int { state.withLock { $0.diensten.count } }

    // MARK: - Enrollment

    /// How long an e-mailed link works (the app's own tokens live 600 s).
    static let linkLifetimeMicros: Int64 = 24 * 3600 * Civil.microsPerSecond

    /// Records an e-mailed link for `email` and returns its token.
    func sendLink(email: String, tenant: String, teamIDs: [String]) -> String {
        let token =
            "enr_"
            + SeedRandom.uuid(seed: "kantinekoning|link|\(UUID().uuidString)").replacingOccurrences(
                of: "-", with: "")
        let link = EnrollmentLink(
            token: token, email: email, tenant: tenant, teamIDs: teamIDs, expires: now + Self.linkLifetimeMicros)
        state.withLock { s in
            s.links[token] = link
            s.mail.append(link)
        }
        return token
    }

    enum LinkUse {
        case ok(EnrollmentLink)
        case unknown
        case used
        case expired
    }

    /// Uses the e-mailed link `token` once.
    func useLink(_ token: String) -> LinkUse {
        let now = self.now
        return state.withLock { s in
            guard let link = s.links[token] else { return .unknown }
            if link.used { return .used }
            if link.expires < now { return .expired }
            s.links[token]?.used = true
            return .ok(link)
        }
    }

    /// Marks a self-made token's `jti` used; false when it was used before.
    func useJTI(_ jti: String) -> Bool {
        state.withLock { $0.usedJTIs.insert(jti).inserted }
    }

    /// A new device enrollment; returns its `api_token`.
    func register(
        tenant: String, role: KantineKoningSimulator.Role, teamIDs: [String], email: String?, hardwareID: String
    ) -> String {
        let token = "SFMyNTY." + SeedRandom.uuid(seed: "kantinekoning|token|\(UUID().uuidString)")
        let enrollment = KantineKoningSimulator.Enrollment(
            tenant: tenant, role: role, token: token, label: "\(tenant) \(role.rawValue) (registered)",
            teamCodes: teamIDs, email: email)
        state.withLock { s in
            s.tokens[token] = TokenState(
                enrollment: enrollment, deviceId: SeedRandom.uuid(seed: "kantinekoning|device|\(hardwareID)"))
            s.tokenOrder.append(token)
        }
        return token
    }

    /// `POST /enrollments/remove-teams`: the teams leave the token's enrollment.
    func removeTeams(token: String, ids: [String]) {
        state.withLock { s in
            guard let t = s.tokens[token], let tenant = s.tenants[t.enrollment.tenant] else { return }
            let gone = Set(
                tenant.teams.filter { team in ids.contains { team.matches($0) } }.flatMap { [$0.id, $0.code] })
            s.tokens[token]?.enrollment.teamCodes.removeAll { gone.contains($0) }
        }
    }

    /// `DELETE /enrollments/tenant` (or `/all` with nil): the device's enrollments there are deleted.
    func leave(token: String, tenant slug: String?) {
        state.withLock { s in
            guard let device = s.tokens[token]?.deviceId else { return }
            for other in s.tokenOrder where s.tokens[other]?.deviceId == device {
                if slug == nil || s.tokens[other]?.enrollment.tenant == slug {
                    s.tokens[other]?.deleted = true
                }
            }
        }
    }

    /// `GET /_sim/mail`: the links sent.
    var mailJSON: JSONValue {
        state.withLock { s in
            .object([
                "mail": .array(
                    s.mail.map { link in
                        .object([
                            "to": .string(link.email), "tenant": .string(link.tenant),
                            "team_codes": .array(link.teamIDs.map(JSONValue.string)),
                            "token": .string(link.token),
                            // The magic link's web form, as the original client guide gives it
                            // (`…kantinekoning.com/…/device-enroll?token=…`).
                            "link": .string("https://kantinekoning.com/device-enroll?token=\(link.token)"),
                        ])
                    })
            ])
        }
    }
}

/// Elixir datetime rendering.
enum KantineKoningTime {
    /// `utc_datetime`: `2026-11-23T18:30:00Z` (seconds precision).
    static func seconds(_ micros: Int64) -> String {
        let whole = micros - ((micros % Civil.microsPerSecond) + Civil.microsPerSecond) % Civil.microsPerSecond
        return Civil.isoString(whole) + "Z"
    }

    /// `utc_datetime_usec`: `2026-11-23T18:30:00.000000Z` (always six digits).
    static func micros(_ micros: Int64) -> String {
        let frac = ((micros % Civil.microsPerSecond) + Civil.microsPerSecond) % Civil.microsPerSecond
        return Civil.isoString(micros - frac) + "." + Civil.pad(Int(frac), 6) + "Z"
    }

    /// Parses an ISO-8601 datetime with a zone (or naive = UTC) to UTC microseconds.
    static func parse(_ s: String) -> Int64? {
        guard case .success(let value) = PyDateTime.pydanticParse(s) else { return nil }
        return value.utcMicros
    }
}
