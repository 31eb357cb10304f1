import Foundation
import Hummingbird
import Model

/// The Kantine Koning mobile API (`/api/mobile/v1`) as the iOS client sees it, with Phoenix's
/// routing and error shapes. See ``KantineKoningSimulator`` for the list of what is simulated.
struct KantineKoningBackend: SimulatorBackend {
    let store: KantineKoningStore
    private let router: KantineKoningRouter

    static let prefix = "/api/mobile/v1"

    init(store: KantineKoningStore) {
        self.store = store
        var r = KantineKoningRouter()
        let p = Self.prefix
        r.add(.get, p + "/diensten") { req, _ in Self.listDiensten(store, req) }
        r.add(.get, p + "/diensten/available") { req, _ in Self.availableDiensten(store, req) }
        r.add(.get, p + "/diensten/{id}") { req, params in Self.showDienst(store, req, params["id"] ?? "") }
        r.add(.post, p + "/diensten/{id}/volunteer") { req, params in
            Self.volunteer(store, req, params["id"] ?? "", add: true)
        }
        r.add(.delete, p + "/diensten/{id}/volunteer") { req, params in
            Self.volunteer(store, req, params["id"] ?? "", add: false)
        }
        r.add(.get, p + "/leaderboard") { req, _ in Self.leaderboard(store, req) }
        r.add(.get, p + "/tenants") { req, _ in Self.tenants(store, req) }
        r.add(.get, p + "/enrollments/status") { req, _ in Self.enrollmentStatus(store, req) }
        r.add(.get, p + "/teams/search") { req, _ in Self.searchTeams(store, req) }
        r.add(.get, p + "/tenants/search") { req, _ in Self.searchTenants(store, req) }
        r.add(.post, p + "/enrollments/request") { req, _ in Self.requestEnrollment(store, req) }
        r.add(.post, p + "/enrollments/register") { req, _ in Self.registerEnrollment(store, req) }
        r.add(.post, p + "/enrollments/remove-teams") { req, _ in Self.removeTeams(store, req) }
        r.add(.delete, p + "/enrollments/tenant") { req, _ in Self.leave(store, req, all: false) }
        r.add(.delete, p + "/enrollments/all") { req, _ in Self.leave(store, req, all: true) }
        self.router = r
    }

    func handle(_ request: SimRequest) async -> Response {
        await router.respond(to: request)
    }

    /// Phoenix's `ErrorJSON` shape for an injected status.
    func faultResponse(status: Int) -> Response {
        Self.phoenixError(status)
    }

    // MARK: - Control routes

    var controlRoutes: [String] {
        [
            "POST /_sim/tokens/revoke", "POST /_sim/tokens/forget", "POST /_sim/tenants/{slug}/season-end",
            "GET /_sim/enrollments", "GET /_sim/clock", "POST /_sim/clock", "POST /_sim/reset", "GET /_sim/writes/fail",
            "POST /_sim/writes/fail", "GET /_sim/mail",
        ]
    }

    func handleControl(_ request: SimRequest) async -> Response? {
        let body = JSONValue.parse(request.body.readableBytesView)
        switch (request.method, request.path) {
        case (.post, "/_sim/tokens/revoke"):
            guard let token = body?["token"]?.stringValue else {
                return .simError("expected {\"token\":\"…\",\"reason\":\"…\"}")
            }
            let reason = body?["reason"]?.stringValue ?? "admin_revoked"
            guard store.revoke(token: token, reason: reason) else { return .simError("unknown token", status: 404) }
            return .json(.object(["token": .string(token), "revoked": .bool(true), "reason": .string(reason)]))
        case (.post, "/_sim/tokens/forget"):
            guard let token = body?["token"]?.stringValue else { return .simError("expected {\"token\":\"…\"}") }
            guard store.forget(token: token) else { return .simError("unknown token", status: 404) }
            return .json(.object(["token": .string(token), "device_not_found": .bool(true)]))
        case (.get, "/_sim/enrollments"):
            return .json(store.enrollmentsJSON)
        case (.get, "/_sim/mail"):
            return .json(store.mailJSON)
        case (.get, "/_sim/writes/fail"):
            return .json(writeFaultJSON)
        case (.post, "/_sim/writes/fail"), (.put, "/_sim/writes/fail"):
            let usage = "expected {\"status\":500,\"count\":1,\"after_write\":false} or {\"status\":null}"
            guard case .object(let o)? = body else { return .simError(usage) }
            switch o["status"] {
            case .null?, nil:
                store.writeFault = nil
            case .int(let status)? where (400...599).contains(status):
                var count = 1
                if let value = o["count"] {
                    guard case .int(let n) = value, n >= 1 else { return .simError("count must be a positive integer") }
                    count = n
                }
                var afterWrite = false
                if let value = o["after_write"] {
                    guard case .bool(let flag) = value else { return .simError("after_write must be true or false") }
                    afterWrite = flag
                }
                store.writeFault = .init(status: status, remaining: count, afterWrite: afterWrite)
            default:
                return .simError("status must be an HTTP error status (400-599) or null; " + usage)
            }
            return .json(writeFaultJSON)
        case (.get, "/_sim/clock"):
            return .json(clockJSON)
        case (.post, "/_sim/clock"), (.put, "/_sim/clock"):
            guard case .object(let o)? = body, o.has("now") else {
                return .simError("expected {\"now\":\"2026-11-23T12:00:00Z\"} or {\"now\":null}")
            }
            switch o["now"] {
            case .null?:
                store.setNow(nil)
            case .string(let s)?:
                guard let micros = KantineKoningTime.parse(s) else {
                    return .simError("now must be an ISO-8601 datetime")
                }
                store.setNow(micros)
            default:
                return .simError("now must be a string or null")
            }
            return .json(clockJSON)
        case (.post, "/_sim/reset"):
            store.reseed()
            return .json(.object(["diensten": .int(store.dienstCount)]))
        default:
            let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
            if request.method == .post, parts.count == 4, parts[1] == "tenants", parts[3] == "season-end" {
                let slug = String(parts[2])
                guard let count = store.endSeason(slug) else {
                    return .simError("unknown tenant '\(slug)'", status: 404)
                }
                return .json(
                    .object(["tenant": .string(slug), "season_ended": .bool(true), "tokens_revoked": .int(count)]))
            }
            return nil
        }
    }

    private var writeFaultJSON: JSONValue {
        guard let fault = store.writeFault else {
            return .object(["status": .null, "count": .int(0), "after_write": .bool(false)])
        }
        return .object([
            "status": .int(fault.status), "count": .int(fault.remaining), "after_write": .bool(fault.afterWrite),
        ])
    }

    private var clockJSON: JSONValue {
        .object([
            "now": .string(KantineKoningTime.micros(store.now)),
            "fixed": .bool(store.isClockFixed),
            "seed_day": .string(store.options.seedDay),
            "time_zone": .string(store.options.timeZone.identifier),
        ])
    }

    // MARK: - Responses

    /// A Phoenix JSON response (`application/json; charset=utf-8`, Plug's default cache-control).
    static func json(_ value: JSONValue, status: Int = 200) -> Response {
        Response(
            status: .init(code: status, reasonPhrase: reasonPhrase(status)),
            headers: [
                .contentType: "application/json; charset=utf-8",
                .cacheControl: "max-age=0, private, must-revalidate",
            ],
            body: .init(byteBuffer: value.bytes)
        )
    }

    /// `{"error":code,"message":message}` (keys in Jason's order).
    static func error(_ status: Int, _ code: String, _ message: String? = nil) -> Response {
        var o: JSONObject = ["error": .string(code)]
        if let message { o.append("message", .string(message)) }
        return json(.object(o), status: status)
    }

    /// Phoenix's default `ErrorJSON`: `{"errors":{"detail":"Not Found"}}`.
    static func phoenixError(_ status: Int) -> Response {
        let phrase = reasonPhrase(status)
        return json(
            .object(["errors": .object(["detail": .string(phrase.isEmpty ? "Error" : phrase)])]), status: status)
    }

    // MARK: - Auth

    static let bearerScheme = "bearer "

    /// Verifies `Authorization: Bearer <token>`; nil session when there is no such header.
    static func bearer(_ request: SimRequest) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        guard header.lowercased().hasPrefix(bearerScheme) else { return nil }
        let token = header.dropFirst(bearerScheme.count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    enum AuthOutcome {
        case session(KantineKoningSession)
        case anonymous
        case failure(Response)
    }

    /// The 401 answers of the token plug.
    /// The request's session, or the 401 to answer (a Bearer token is required).
    static func requireSession(_ store: KantineKoningStore, _ request: SimRequest) -> Checked<
        KantineKoningSession, Response
    > {
        switch authenticate(store, request) {
        case .session(let session): .success(session)
        case .anonymous: .failure(error(401, "unauthorized", "Authenticatie vereist"))
        case .failure(let response): .failure(response)
        }
    }

    static func authenticate(_ store: KantineKoningStore, _ request: SimRequest, optional: Bool = false) -> AuthOutcome
    {
        guard let token = bearer(request) else {
            if optional { return .anonymous }
            return .failure(error(401, "unauthorized", "Authenticatie vereist"))
        }
        switch store.verify(token: token) {
        case .ok(let session): return .session(session)
        case .invalid: return .failure(json(.object(["error": .string("invalid_token")]), status: 401))
        case .deviceNotFound: return .failure(json(.object(["error": .string("device_not_found")]), status: 401))
        case .revoked(let reason):
            let message =
                reason == "season_ended"
                ? "Het seizoen is afgelopen. Nieuwe aanmeldingen volgen volgend seizoen."
                : "Deze koppeling is ingetrokken."
            return .failure(
                json(
                    .object(["error": .string("token_revoked"), "message": .string(message), "reason": .string(reason)]
                    ),
                    status: 401
                )
            )
        }
    }

    /// Checks an explicit `tenant` parameter: an unknown club is 404 `tenant_not_found` (a code
    /// the app knows). Another club than the token's is no refusal of its own (the contract
    /// lists none): the server filters by the teams inside the token, so nothing of that club
    /// is seen (`tenantSeen` false).
    static func checkTenant(_ store: KantineKoningStore, _ query: QueryItems, _ session: KantineKoningSession)
        -> (response: Response?, tenantSeen: Bool)
    {
        guard let slug = query.value("tenant"), !slug.isEmpty else { return (nil, true) }
        guard store.tenant(slug) != nil else {
            return (error(404, "tenant_not_found", "Vereniging niet gevonden"), false)
        }
        return (nil, slug == session.tenant.slug)
    }

    // MARK: - Diensten

    static func window(_ query: QueryItems, _ name: String, default value: Int) -> Int {
        guard let raw = query.value(name), let n = Int(raw.trimmingCharacters(in: .whitespaces)) else { return value }
        return max(0, n)
    }

    static func listDiensten(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        let session: KantineKoningSession
        switch requireSession(store, request) {
        case .success(let s): session = s
        case .failure(let response): return response
        }
        let query = QueryItems(raw: request.rawQuery)
        let tenant = checkTenant(store, query, session)
        if let response = tenant.response { return response }
        guard tenant.tenantSeen else { return json(.object(["diensten": .array([])])) }
        let now = store.now
        let from = now - Int64(window(query, "past_days", default: 365)) * Civil.microsPerDay
        let until = now + Int64(window(query, "future_days", default: 60)) * Civil.microsPerDay
        let includeOpen = store.options.openDienstenInList
        let list = store.diensten { d in
            d.tenantSlug == session.tenant.slug && d.start >= from && d.start <= until
                && (session.covers(d.team) || (includeOpen && d.team == nil))
        }
        return json(.object(["diensten": .array(list.map(\.json))]))
    }

    static func availableDiensten(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        let session: KantineKoningSession
        switch requireSession(store, request) {
        case .success(let s): session = s
        case .failure(let response): return response
        }
        guard session.isManager else {
            return error(403, "team_access_denied", "Alleen teammanagers kunnen beschikbare diensten bekijken")
        }
        let query = QueryItems(raw: request.rawQuery)
        let current = query.value("current_team_code")
        let now = store.now
        let list = store.diensten { d in
            guard d.tenantSlug == session.tenant.slug, d.start > now else { return false }
            guard let team = d.team else { return true }
            // Offered by another team: not the caller's own teams, nor `current_team_code`.
            if let current, team.matches(current) { return false }
            return d.offeredForTransfer && !session.covers(team)
        }
        return json(.object(["diensten": .array(list.map(\.json))]))
    }

    static func showDienst(_ store: KantineKoningStore, _ request: SimRequest, _ id: String) -> Response {
        let session: KantineKoningSession
        switch requireSession(store, request) {
        case .success(let s): session = s
        case .failure(let response): return response
        }
        let query = QueryItems(raw: request.rawQuery)
        let tenant = checkTenant(store, query, session)
        if let response = tenant.response { return response }
        guard tenant.tenantSeen, let dienst = store.dienst(id), dienst.tenantSlug == session.tenant.slug else {
            return error(404, "dienst_not_found", "Dienst niet gevonden")
        }
        return json(.object(["dienst": dienst.json]))
    }

    /// `POST`/`DELETE /diensten/{id}/volunteer`.
    static func volunteer(_ store: KantineKoningStore, _ request: SimRequest, _ id: String, add: Bool) -> Response {
        let session: KantineKoningSession
        switch requireSession(store, request) {
        case .success(let s): session = s
        case .failure(let response): return response
        }
        let query = QueryItems(raw: request.rawQuery)
        // Plug.Parsers: a JSON body that does not parse is a 400 before the controller runs.
        var bodyParams: JSONObject = [:]
        if request.body.readableBytes > 0, isJSON(request) {
            guard let parsed = JSONValue.parse(request.body.readableBytesView) else { return phoenixError(400) }
            if case .object(let o) = parsed { bodyParams = o }
        }
        let tenant = checkTenant(store, query, session)
        if let response = tenant.response { return response }
        // Another club's dienst: none of the token's teams manages it.
        guard tenant.tenantSeen else {
            return error(403, "team_access_denied", "Je bent niet gemachtigd om vrijwilligers te beheren voor dit team")
        }
        let fault = store.takeWriteFault()
        if let fault, !fault.afterWrite { return phoenixError(fault.status) }

        enum Outcome {
            case ok(KantineKoningDienst)
            case failure(Response)
        }
        let now = store.now
        let rawName: JSONValue? = bodyParams["naam"] ?? query.value("naam").map(JSONValue.string)
        let outcome: Outcome? = store.update(id) { dienst in
            guard dienst.tenantSlug == session.tenant.slug else {
                return .failure(error(404, "dienst_not_found", "Dienst niet gevonden"))
            }
            guard session.isManager, session.covers(dienst.team) else {
                return .failure(
                    error(
                        403, "team_access_denied", "Je bent niet gemachtigd om vrijwilligers te beheren voor dit team")
                )
            }
            guard case .string(let raw)? = rawName else {
                return .failure(error(422, "invalid_name", "Naam is verplicht"))
            }
            let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { return .failure(error(422, "invalid_name", "Naam is verplicht")) }
            // The server's source is not public; the app sends the exact name to remove (and lets
            // "Jan" and "jan" both be on a dienst), so the name is matched exactly, as a database
            // `=` compares: removing "jan" leaves "Jan".
            let existing = dienst.aanmeldingen.firstIndex { $0 == name }
            if add {
                // The 15-character limit and the duplicate check are the app's (its UI), not
                // the server's: the server stores the name as sent.
                dienst.aanmeldingen.append(name)
            } else {
                guard let existing else {
                    return .failure(
                        error(404, "volunteer_not_found", "\(name) staat niet ingeschreven voor deze dienst"))
                }
                dienst.aanmeldingen.remove(at: existing)
            }
            dienst.updatedAt = max(now, dienst.updatedAt + 1)
            return .ok(dienst)
        }
        switch outcome {
        case .none: return error(404, "dienst_not_found", "Dienst niet gevonden")
        case .failure(let response)?: return response
        case .ok(let dienst)?:
            // The change is stored; only the answer is lost.
            if let fault { return phoenixError(fault.status) }
            return json(.object(["dienst": dienst.json]))
        }
    }

    static func isJSON(_ request: SimRequest) -> Bool {
        guard let type = request.headers[.contentType]?.lowercased() else { return false }
        return type.hasPrefix("application/json") || type.contains("+json")
    }

    // MARK: - Leaderboard

    static func leaderboard(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        var session: KantineKoningSession?
        switch authenticate(store, request, optional: true) {
        case .session(let s): session = s
        case .anonymous: session = nil
        case .failure(let response): return response
        }
        let query = QueryItems(raw: request.rawQuery)
        let slug = query.value("tenant").flatMap { $0.isEmpty ? nil : $0 } ?? session?.tenant.slug
        guard let slug, let tenant = store.tenant(slug) else {
            return error(404, "tenant_not_found", "Vereniging niet gevonden")
        }
        let period = query.value("period").flatMap { $0.isEmpty ? nil : $0 } ?? "season"
        let now = store.now
        let since: Int64?
        switch period {
        case "week": since = now - 7 * Civil.microsPerDay
        case "month": since = now - 30 * Civil.microsPerDay
        case "season": since = nil
        default: return error(400, "invalid_period", "Periode moet week, month of season zijn")
        }
        let highlight = query.value("team_id").flatMap { $0.isEmpty ? nil : $0 }
        let done = store.diensten {
            $0.tenantSlug == slug && $0.team != nil && $0.end <= now && $0.status != "geannuleerd"
        }
        let recentSince = now - 7 * Civil.microsPerDay

        struct Row {
            var team: KantineKoningTeamRecord
            var hours: Double
            var points: Int
            var recent: Int
        }
        var rows: [Row] = tenant.teams.map { team in
            let mine = done.filter { $0.team?.id == team.id }
            var hours = mine.filter { since == nil || $0.start >= since! }.reduce(0.0) {
                $0 + $1.hours * Double($1.aanmeldingen.count)
            }
            if since == nil { hours += tenant.baseSeasonHours[team.id] ?? 0 }
            let recentHours = mine.filter { $0.start >= recentSince }.reduce(0.0) {
                $0 + $1.hours * Double($1.aanmeldingen.count)
            }
            return Row(
                team: team, hours: hours, points: Int((hours * 10).rounded()), recent: Int((recentHours * 10).rounded())
            )
        }
        rows.sort { ($0.points, $1.team.naam) > ($1.points, $0.team.naam) }
        var entries: [JSONValue] = []
        for (index, row) in rows.enumerated() {
            let highlighted = highlight.map { row.team.matches($0) } ?? false
            guard index < 10 || highlighted else { continue }
            entries.append(
                .object([
                    "highlighted": .bool(highlighted),
                    "points": .int(row.points),
                    "position_change": .int(tenant.positionChange[row.team.id] ?? 0),
                    "rank": .int(index + 1),
                    "recent_change": .int(row.recent),
                    "team": row.team.json,
                    "total_hours": .double((row.hours * 100).rounded() / 100),
                ])
            )
        }
        return json(
            .object([
                "club": .object(["naam": .string(tenant.name)]),
                "period": .string(period),
                "teams": .array(entries),
                "tenant": .object([
                    "club_name": .string(tenant.name),
                    "leaderboard_opt_out": .bool(tenant.leaderboardOptOut),
                    "slug": .string(tenant.slug),
                ]),
            ])
        )
    }

    // MARK: - Tenants, status, search

    static func tenants(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        let session: KantineKoningSession
        switch requireSession(store, request) {
        case .success(let s): session = s
        case .failure(let response): return response
        }
        let tenant = session.tenant
        let teams: [JSONValue] = session.teams.map { team in
            .object([
                "code": .string(team.code), "id": .string(team.id), "naam": .string(team.naam),
                "role": .string(session.enrollment.role.rawValue),
            ])
        }
        return json(
            .object([
                "tenants": .array([
                    .object([
                        "club_logo_url": tenant.clubLogoURL.map(JSONValue.string) ?? .null,
                        "club_name": .string(tenant.name),
                        "season_ended": .bool(tenant.seasonEnded),
                        "slug": .string(tenant.slug),
                        "teams": .array(teams),
                    ])
                ])
            ])
        )
    }

    static func enrollmentStatus(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        let session: KantineKoningSession
        switch requireSession(store, request) {
        case .success(let s): session = s
        case .failure(let response): return response
        }
        let codes = session.teams.map(\.code)
        return json(
            .object([
                "device_id": .string(session.deviceId),
                "has_apns_token": .bool(false),
                "last_seen_at": .string(KantineKoningTime.micros(store.now)),
                "push_enabled": .bool(false),
                "role": .string(session.enrollment.role.rawValue),
                "status": .string("active"),
                "team_codes": .array(codes.map(JSONValue.string)),
                "team_email_preferences": .object(
                    JSONObject(fields: codes.sorted().map { ($0, JSONValue.bool(session.isManager)) })),
                "tenant_name": .string(session.tenant.name),
                "tenant_slug": .string(session.tenant.slug),
            ])
        )
    }

    static func searchTeams(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        let query = QueryItems(raw: request.rawQuery)
        guard let slug = query.value("tenant"), let tenant = store.tenant(slug) else {
            return error(404, "tenant_not_found", "Vereniging niet gevonden")
        }
        let q = (query.value("q") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let teams = tenant.teams.filter {
            q.isEmpty || $0.code.lowercased().contains(q) || $0.naam.lowercased().contains(q)
        }
        return json(.object(["teams": .array(teams.map(\.json))]))
    }

    static func searchTenants(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        let query = QueryItems(raw: request.rawQuery)
        let q = (query.value("q") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let tenants = store.tenants.filter {
            q.isEmpty || $0.slug.lowercased().contains(q) || $0.name.lowercased().contains(q)
        }
        return json(
            .object([
                "tenants": .array(
                    tenants.map { t in
                        .object([
                            "club_logo_url": t.clubLogoURL.map(JSONValue.string) ?? .null,
                            "enrollment_message": t.seasonEnded
                                ? .string("Seizoen is afgelopen. Nieuwe enrollments volgen volgend seizoen.") : .null,
                            "enrollment_open": .bool(!t.seasonEnded),
                            "name": .string(t.name),
                            "slug": .string(t.slug),
                        ])
                    }
                )
            ])
        )
    }
}

// MARK: - Routing (Phoenix semantics)

/// Phoenix-style matching: the path is split into non-empty segments (so a trailing or doubled
/// slash still matches), routes are tried in order, HEAD is served as GET, and anything unmatched,
/// a wrong method included, is 404 `{"errors":{"detail":"Not Found"}}`.
struct KantineKoningRouter: Sendable {
    typealias Handler = @Sendable (SimRequest, [String: String]) async -> Response

    private enum Part: Sendable {
        case literal(String)
        case parameter(String)
    }

    private struct Route: Sendable {
        let method: HTTPRequest.Method
        let parts: [Part]
        let handler: Handler
    }

    private var routes: [Route] = []

    mutating func add(_ method: HTTPRequest.Method, _ pattern: String, _ handler: @escaping Handler) {
        let parts: [Part] = pattern.split(separator: "/").map { piece in
            piece.hasPrefix("{") && piece.hasSuffix("}")
                ? .parameter(String(piece.dropFirst().dropLast())) : .literal(String(piece))
        }
        routes.append(Route(method: method, parts: parts, handler: handler))
    }

    func respond(to request: SimRequest) async -> Response {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
        let method = request.method == .head ? .get : request.method
        for route in routes where route.method == method && route.parts.count == segments.count {
            var params: [String: String] = [:]
            var matched = true
            for (part, segment) in zip(route.parts, segments) {
                switch part {
                case .literal(let literal):
                    if segment != literal { matched = false }
                case .parameter(let name):
                    params[name] = String(segment)
                }
                if !matched { break }
            }
            if matched { return await route.handler(request, params) }
        }
        return KantineKoningBackend.phoenixError(404)
    }
}
