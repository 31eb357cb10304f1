import Foundation
import HTTPTypes
import Hummingbird
import Model
import NIOCore

/// The Tickedify API as `server.js` and `database.js` implement it, quirks included.
struct TickedifyBackend: SimulatorBackend {
    let store: TickedifyStore

    /// `GET /api/lijsten`.
    static let lijsten = [
        "inbox", "acties", "opvolgen", "afgewerkte-taken", "uitgesteld-wekelijks", "uitgesteld-maandelijks",
        "uitgesteld-3maandelijks", "uitgesteld-6maandelijks", "uitgesteld-jaarlijks", "projecten-lijst", "contexten",
    ]

    static let rateLimitMessage = "Too many authentication attempts, please try again after 15 minutes"

    // MARK: - Routing

    /// One request as a handler sees it.
    struct Call {
        var request: SimRequest
        var body: JSONValue
        var params: [String: String]
        var session: TickedifySession?
    }

    private enum Route {
        case login, logout, me, persistentToken, autoLogin
        case lijsten, lijst, sidebar, tellingen, addToInbox, taakPut, taakUnarchive, taakRecurring
        case planningGet, planningPost, planningPut, planningReorder, planningDelete
        case ping, status, version, home
    }

    private static let routes: [(HTTPRequest.Method, String, Route)] = [
        (.post, "/api/auth/login", .login),
        (.post, "/api/auth/logout", .logout),
        (.get, "/api/auth/me", .me),
        (.get, "/api/auth/generate-persistent-token", .persistentToken),
        (.get, "/al/:token", .autoLogin),
        (.get, "/api/lijsten", .lijsten),
        (.get, "/api/lijst/:naam", .lijst),
        (.get, "/api/counts/sidebar", .sidebar),
        (.get, "/api/tellingen", .tellingen),
        (.post, "/api/taak/add-to-inbox", .addToInbox),
        (.post, "/api/taak/recurring", .taakRecurring),
        (.put, "/api/taak/:id", .taakPut),
        (.post, "/api/taak/:id/unarchive", .taakUnarchive),
        (.get, "/api/dagelijkse-planning/:datum", .planningGet),
        (.post, "/api/dagelijkse-planning", .planningPost),
        (.put, "/api/dagelijkse-planning/:id", .planningPut),
        (.put, "/api/dagelijkse-planning/:id/reorder", .planningReorder),
        (.delete, "/api/dagelijkse-planning/:id", .planningDelete),
        (.get, "/api/ping", .ping),
        (.get, "/api/status", .status),
        (.get, "/api/version", .version),
        (.get, "/", .home),
        (.get, "/app", .home),
    ]

    /// Express path matching: case-insensitive, optional trailing slash, `:param` = one non-empty
    /// segment, percent-decoded.
    static func match(_ pattern: String, rawPath: String) -> [String: String]? {
        var path = rawPath
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let want = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let have = path.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return nil }
        var params: [String: String] = [:]
        for (w, h) in zip(want, have) {
            if w.hasPrefix(":") {
                guard !h.isEmpty else { return nil }
                params[String(w.dropFirst())] = percentDecode(h, plusAsSpace: false)
            } else if w.lowercased() != h.lowercased() {
                return nil
            }
        }
        return params
    }

    func handle(_ request: SimRequest) async -> Response {
        if request.method == .options {
            // The cors middleware ends every preflight itself.
            var fields = TickedifyHTTP.baseHeaders()
            fields[.vary] = "Origin, Access-Control-Request-Headers"
            fields[.init("Access-Control-Allow-Methods")!] = "GET,HEAD,PUT,PATCH,POST,DELETE"
            fields[.contentLength] = "0"
            return Response(status: .noContent, headers: fields, body: .init())
        }
        // express.json() / express.urlencoded() run before any route.
        let body: JSONValue
        switch TickedifyBody.parse(request) {
        case .invalidJSON(let message):
            return TickedifyHTTP.json(
                .object(["error": .string("Internal server error"), "message": .string(message)]), status: 500,
                request: request
            )
        case .parsed(let value):
            body = value
        }
        let session = store.session(cookieHeaders: request.headers[values: .cookie])
        for (method, pattern, route) in Self.routes where method == request.method {
            guard let params = Self.match(pattern, rawPath: request.rawPath) else { continue }
            let call = Call(request: request, body: body, params: params, session: session)
            return await dispatch(route, call)
        }
        if request.path.lowercased() == "/api" || request.path.lowercased().hasPrefix("/api/") {
            return TickedifyHTTP.error("Route \(request.path) not found", status: 404, request: request)
        }
        return TickedifyHTTP.cannot(request)
    }

    private func dispatch(_ route: Route, _ call: Call) async -> Response {
        switch route {
        case .login: return login(call)
        case .logout: return logout(call)
        case .me: return me(call)
        case .persistentToken: return persistentToken(call)
        case .autoLogin: return autoLogin(call)
        case .lijsten: return TickedifyHTTP.json(.array(Self.lijsten.map(JSONValue.string)), request: call.request)
        case .lijst: return lijst(call)
        case .sidebar: return sidebar(call)
        case .tellingen: return tellingen(call)
        case .addToInbox: return await addToInbox(call)
        case .taakPut:
            // No requireAuth: getCurrentUserId throws inside the try, and the catch's log line
            // names `id`, declared inside the try: the ReferenceError escapes the async handler
            // and Node 20 dies on the unhandled rejection, as with the planning routes.
            guard let session = call.session else { return crash() }
            return taakPut(call, session)
        case .taakUnarchive: return taakUnarchive(call)
        case .taakRecurring: return taakRecurring(call)
        case .planningReorder:
            // Its catch block does not call getCurrentUserId again: a 500, no crash (recorded: 107, 108).
            guard let session = call.session else {
                return TickedifyHTTP.error(
                    "Fout bij herordenen dagelijkse planning", status: 500, request: call.request)
            }
            return planningReorder(call, session)
        case .planningGet, .planningPost, .planningPut, .planningDelete:
            guard let session = call.session else { return crash() }
            switch route {
            case .planningGet: return planningGet(call, session)
            case .planningPost: return planningPost(call, session)
            case .planningPut: return planningPut(call, session)
            default: return planningDelete(call)
            }
        case .ping:
            return TickedifyHTTP.json(
                .object([
                    "message": .string("pong"), "timestamp": .string(TickedifyTime.iso(TickedifyTime.nowMs())),
                    "version": .string("1.1"),
                ]), request: call.request
            )
        case .status: return status(call)
        case .version: return version(call)
        case .home:
            return TickedifyHTTP.html(
                "<!DOCTYPE html><html lang=\"nl\"><head><meta charset=\"UTF-8\"><title>Tickedify</title></head>"
                    + "<body><div id=\"app\"></div></body></html>", request: call.request
            )
        }
    }

    /// The Node process dies: the connection closes without an answer. The crash is counted.
    func crash() -> Response {
        store.recordCrash()
        return .dropConnection
    }

    // MARK: - Auth

    private func login(_ call: Call) -> Response {
        // express-rate-limit 7, standardHeaders draft-6, counting every attempt.
        // Express's `req.ip` without `trust proxy`: the socket peer.
        let ip = call.request.peerIP ?? "127.0.0.1"
        let now = TickedifyTime.nowMs()
        let client = store.hitLogin(key: ip, now: now)
        let limit = store.options.loginLimit
        let windowSeconds = (store.windowMs + 999) / 1000
        let resetSeconds = max(0, (client.resetAt - now + 999) / 1000)
        var headers: [(HTTPField.Name, String)] = [
            (.init("RateLimit-Policy")!, "\(limit);w=\(windowSeconds)"),
            (.init("RateLimit-Limit")!, "\(limit)"),
            (.init("RateLimit-Remaining")!, "\(max(0, limit - client.totalHits))"),
            (.init("RateLimit-Reset")!, "\(resetSeconds)"),
        ]
        if client.totalHits > limit {
            headers.append((.retryAfter, "\(resetSeconds)"))
            return TickedifyHTTP.json(
                .object(["error": .string(Self.rateLimitMessage)]), status: 429, headers: headers, request: call.request
            )
        }
        func reply(_ value: JSONValue, _ status: Int, _ extra: [(HTTPField.Name, String)] = []) -> Response {
            TickedifyHTTP.json(value, status: status, headers: headers + extra, request: call.request)
        }
        let email = call.body["email"] ?? .null
        let password = call.body["wachtwoord"] ?? .null
        guard Self.truthy(email), Self.truthy(password) else {
            return reply(.object(["error": .string("Email en wachtwoord zijn verplicht")]), 400)
        }
        // `WHERE email = $1`: exact and case-sensitive; a non-string never equals an address.
        guard case .string(let address) = email, let user = store.users.first(where: { $0.email == address }) else {
            return reply(.object(["error": .string("Ongeldige email of wachtwoord")]), 401)
        }
        // bcrypt.compare rejects anything but a string ("Illegal arguments").
        guard case .string(let given) = password else {
            return reply(.object(["error": .string("Fout bij inloggen")]), 500)
        }
        guard given == user.password else {
            return reply(.object(["error": .string("Ongeldige email of wachtwoord")]), 401)
        }
        guard user.actief else {
            return reply(.object(["error": .string("Account is gedeactiveerd")]), 401)
        }
        let session = store.login(user, existing: call.session, now: now)
        let cookie = (HTTPField.Name.setCookie, session.setCookie(cookieExpires: now + TickedifyCookies.maxAgeMs))
        let userJSON: JSONValue = .object([
            "id": .string(user.id), "email": .string(user.email), "naam": .string(user.naam), "rol": .string(user.rol),
        ])
        // The upgrade answer is reserved for beta accounts after the beta period; a regular
        // account whose trial ended gets the plain success (recorded: 118).
        if user.requiresUpgrade, user.expiryType == "beta" {
            return reply(
                .object([
                    "success": .bool(true), "requiresUpgrade": .bool(true), "expiryType": .string(user.expiryType),
                    "message": .string("Login succesvol, upgrade vereist voor volledige toegang"), "user": userJSON,
                ]), 200, [cookie]
            )
        }
        return reply(
            .object(["success": .bool(true), "message": .string("Succesvol ingelogd"), "user": userJSON]), 200, [cookie]
        )
    }

    private func logout(_ call: Call) -> Response {
        if let session = call.session { store.destroy(session) }
        return TickedifyHTTP.json(
            .object(["success": .bool(true), "message": .string("Succesvol uitgelogd")]), request: call.request)
    }

    private func me(_ call: Call) -> Response {
        guard let session = call.session else {
            return TickedifyHTTP.error("Not authenticated", status: 401, request: call.request)
        }
        guard let user = store.user(id: session.userId) else {
            return TickedifyHTTP.error("User not found", status: 401, request: call.request)
        }
        let expired = user.requiresUpgrade
        let accessMessage: JSONValue =
            expired
            ? .string(
                user.expiryType == "beta"
                    ? "The beta period has ended. Please choose a subscription to continue using Tickedify."
                    : "Your free trial has ended. Upgrade to continue using Tickedify."
            ) : .null
        return TickedifyHTTP.json(
            .object([
                "authenticated": .bool(true),
                "hasAccess": .bool(!expired),
                "requiresUpgrade": .bool(expired),
                "expiryType": expired ? .string(user.expiryType) : .null,
                "accessMessage": accessMessage,
                "user": .object([
                    "id": .string(session.userId), "email": .string(session.userEmail),
                    "naam": .string(session.userNaam),
                    "account_type": .string(expired && user.expiryType == "beta" ? "beta" : "regular"),
                    "subscription_status": .string(
                        expired ? (user.expiryType == "beta" ? "expired" : "trial_expired") : "active"),
                ]),
                "betaConfig": .object(["beta_period_active": .bool(true), "beta_ended_at": .null]),
            ]), request: call.request
        )
    }

    private func persistentToken(_ call: Call) -> Response {
        guard let session = call.session else {
            return TickedifyHTTP.error("Authentication required", status: 401, request: call.request)
        }
        let token = store.newToken(for: session.userId)
        let host = call.request.authority ?? "127.0.0.1"
        return TickedifyHTTP.json(
            .object(["success": .bool(true), "token": .string(token), "url": .string("http://\(host)/al/\(token)")]),
            request: call.request
        )
    }

    private func autoLogin(_ call: Call) -> Response {
        guard let token = call.params["token"], let user = store.user(forToken: token), user.actief else {
            return TickedifyHTTP.redirect("/app", request: call.request)
        }
        let now = TickedifyTime.nowMs()
        let session = store.login(user, existing: call.session, now: now)
        return TickedifyHTTP.redirect(
            "/app", headers: [(.setCookie, session.setCookie(cookieExpires: now + TickedifyCookies.maxAgeMs))],
            request: call.request)
    }

    // MARK: - Lists and counts

    private func lijst(_ call: Call) -> Response {
        // getCurrentUserId throws; the route's catch answers 404.
        guard let session = call.session else {
            return TickedifyHTTP.error("Lijst niet gevonden", status: 404, request: call.request)
        }
        let naam = call.params["naam"] ?? ""
        let items: [JSONValue] = store.read { data, style in
            switch naam {
            case "projecten-lijst":
                return data.projects.filter { $0.userId == session.userId }.sorted { $0.aangemaakt > $1.aangemaakt }.map
                { $0.json(style) }
            case "contexten":
                return data.contexts.filter { $0.userId == session.userId }.sorted { $0.aangemaakt > $1.aangemaakt }
                    .map(\.json)
            case "afgewerkte-taken", "afgewerkt":
                // Read from taken_archief.
                return Self.ordered(data.tasks) {
                    $0.userId == session.userId && $0.archived && $0.verwijderdOp == nil
                }
                .sorted { ($0.afgewerkt ?? 0) > ($1.afgewerkt ?? 0) }.map { $0.archiveJSON(style) }
            default:
                return Self.ordered(data.tasks) { $0.userId == session.userId && $0.lijst == naam && $0.isOpen }.map {
                    $0.json(style)
                }
            }
        }
        return TickedifyHTTP.json(.array(items), request: call.request)
    }

    /// Tasks passing `filter`, `ORDER BY aangemaakt DESC` (later insertion first on a tie).
    static func ordered(_ tasks: [TickedifyTask], where filter: (TickedifyTask) -> Bool) -> [TickedifyTask] {
        tasks.enumerated().filter { filter($0.element) }
            .sorted { ($0.element.aangemaakt, $0.offset) > ($1.element.aangemaakt, $1.offset) }.map(\.element)
    }

    private func sidebar(_ call: Call) -> Response {
        guard let session = call.session else {
            return TickedifyHTTP.error("Not authenticated", status: 401, request: call.request)
        }
        let today = store.currentDate
        let counts: JSONValue = store.read { data, _ in
            let open = data.tasks.filter { $0.userId == session.userId && $0.isOpen }
            let acties = open.filter { task in
                guard task.lijst == "acties" else { return false }
                guard let day = task.verschijndatum else { return true }
                return day <= today
            }
            return .object([
                "inbox": .int(open.filter { $0.lijst == "inbox" }.count),
                "acties": .int(acties.count),
                "projecten": .int(data.projects.filter { $0.userId == session.userId }.count),
                "opvolgen": .int(open.filter { $0.lijst == "opvolgen" }.count),
                "uitgesteld": .int(open.filter { $0.lijst.hasPrefix("uitgesteld-") }.count),
            ])
        }
        return TickedifyHTTP.json(counts, request: call.request)
    }

    /// The legacy `getCounts`: `{}` without a session; counts ignore soft deletion and dates.
    private func tellingen(_ call: Call) -> Response {
        guard let session = call.session else { return TickedifyHTTP.json(.object([:]), request: call.request) }
        let counts: JSONValue = store.read { data, _ in
            let mine = data.tasks.filter { $0.userId == session.userId }
            func open(_ lijst: String) -> JSONValue {
                .int(mine.filter { $0.lijst == lijst && $0.afgewerkt == nil }.count)
            }
            return .object([
                "inbox": open("inbox"), "acties": open("acties"), "opvolgen": open("opvolgen"),
                "afgewerkte-taken": .int(mine.filter { $0.afgewerkt != nil }.count),
                "uitgesteld-wekelijks": open("uitgesteld-wekelijks"),
                "uitgesteld-maandelijks": open("uitgesteld-maandelijks"),
                "uitgesteld-3maandelijks": open("uitgesteld-3maandelijks"),
                "uitgesteld-6maandelijks": open("uitgesteld-6maandelijks"),
                "uitgesteld-jaarlijks": open("uitgesteld-jaarlijks"),
                "projecten-lijst": .int(data.projects.filter { $0.userId == session.userId }.count),
            ])
        }
        return TickedifyHTTP.json(counts, request: call.request)
    }

    // MARK: - Add to inbox

    private func addToInbox(_ call: Call) async -> Response {
        func failure(_ details: String) -> Response {
            TickedifyHTTP.json(
                .object(["error": .string("Fout bij opslaan"), "details": .string(details)]), status: 500,
                request: call.request)
        }
        guard let session = call.session else { return failure("Niet ingelogd - geen geldige sessie") }
        let tekst = call.body["tekst"] ?? .null
        guard Self.truthy(tekst) else {
            return TickedifyHTTP.error("Tekst is required", status: 400, request: call.request)
        }
        // A number is stored as its text (recorded: 032, `{"tekst":42}` made the task "42").
        let raw: String
        switch tekst {
        case .string(let text): raw = text
        case .int, .double: raw = Self.pgText(tekst) ?? ""
        default: return failure("tekst.trim is not a function")
        }
        let trimmed = Self.jsTrim(raw)
        guard !trimmed.isEmpty else {
            return TickedifyHTTP.error("Tekst is required", status: 400, request: call.request)
        }

        // getList('inbox') …
        let snapshot: [TickedifyTask] = store.read { data, _ in
            Self.ordered(data.tasks) { $0.userId == session.userId && $0.lijst == "inbox" && $0.isOpen }
        }
        let now = TickedifyTime.nowMs()
        var newTask = TickedifyTask(
            id: TickedifyTime.newTaskID(now: now), tekst: trimmed, aangemaakt: now, lijst: "inbox",
            userId: session.userId)
        newTask.prioriteit = "gemiddeld"
        // … the database round trips, during which other requests run …
        await store.inboxRace.arrive()
        try? await Task.sleep(for: store.options.inboxRaceWindow)
        // … then saveList('inbox', [...current, new]): DELETE every open inbox row, re-INSERT each.
        let error: String? = store.write { data in
            let doomed = Set(
                data.tasks.filter { $0.userId == session.userId && $0.lijst == "inbox" && $0.afgewerkt == nil }.map(
                    \.id))
            data.tasks.removeAll { doomed.contains($0.id) }
            // ON DELETE CASCADE: planning rows (and attachments) of the deleted rows go too.
            data.planning.removeAll { $0.actieId.map(doomed.contains) ?? false }
            for item in snapshot + [newTask] {
                // taken's primary key; a row in taken_archief does not count.
                if data.tasks.contains(where: { $0.id == item.id && !$0.archived }) {
                    return "duplicate key value violates unique constraint \"taken_pkey\""
                }
                data.tasks.append(Self.reinserted(item))
            }
            return nil
        }
        if let error { return failure(error) }
        return TickedifyHTTP.json(
            .object(["success": .bool(true), "taskId": .string(newTask.id)]), request: call.request)
    }

    /// A row as `saveList`'s fixed INSERT writes it back: columns outside its list are reset and
    /// `||` turns falsy values into NULL.
    static func reinserted(_ task: TickedifyTask) -> TickedifyTask {
        func nonEmpty(_ s: String?) -> String? { (s?.isEmpty ?? true) ? nil : s }
        var row = TickedifyTask(
            id: task.id, tekst: task.tekst, aangemaakt: task.aangemaakt, lijst: "inbox", userId: task.userId)
        row.projectId = nonEmpty(task.projectId)
        row.verschijndatum = task.verschijndatum
        row.contextId = nonEmpty(task.contextId)
        row.duur = task.duur == 0 ? nil : task.duur
        row.type = nonEmpty(task.type)
        row.herhalingType = nonEmpty(task.herhalingType)
        row.herhalingWaarde = task.herhalingWaarde == 0 ? nil : task.herhalingWaarde
        row.herhalingActief = task.herhalingActief
        row.opmerkingen = nonEmpty(task.opmerkingen)
        row.prioriteit = nonEmpty(task.prioriteit) ?? "gemiddeld"
        return row
    }

    // MARK: - Dagelijkse planning

    private func planningGet(_ call: Call, _ session: TickedifySession) -> Response {
        // No validation: a string Postgres cannot read as a date fails the query, which gives [].
        guard let day = TickedifyTime.pgDate(call.params["datum"] ?? "") else {
            return TickedifyHTTP.json(.array([]), request: call.request)
        }
        let items: [JSONValue] = store.read { data, style in
            let tasks = Dictionary(data.tasks.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            return data.planning.enumerated()
                .filter { entry in
                    let item = entry.element
                    guard item.datum == day, item.userId == session.userId else { return false }
                    guard let actieId = item.actieId else { return true }
                    guard let task = tasks[actieId] else { return true }
                    return task.afgewerkt == nil && task.verwijderdOp == nil
                }
                .sorted { a, b in
                    (a.element.uur, a.element.positie, a.element.aangemaakt, a.offset) < (
                        b.element.uur, b.element.positie, b.element.aangemaakt, b.offset
                    )
                }
                .map { $0.element.json(task: $0.element.actieId.flatMap { tasks[$0] }, style) }
        }
        return TickedifyHTTP.json(.array(items), request: call.request)
    }

    private func planningPost(_ call: Call, _ session: TickedifySession) -> Response {
        let failure = TickedifyHTTP.error(
            "Fout bij toevoegen aan dagelijkse planning", status: 500, request: call.request)
        let body = call.body
        // The INSERT's constraints: datum DATE NOT NULL, uur 0-23, type in (taak, geblokkeerd, pauze),
        // duur_minuten NOT NULL, actie_id a foreign key into taken.
        guard let datum = Self.pgText(body["datum"]).flatMap(TickedifyTime.pgDate),
            let uur = Self.pgInteger(body["uur"]), (0...23).contains(uur),
            let type = Self.pgText(body["type"]), ["taak", "geblokkeerd", "pauze"].contains(type),
            let duur = Self.pgInteger(body["duurMinuten"])
        else { return failure }
        var positie: Int?
        if let raw = body["positie"], raw != .null {
            guard let value = Self.pgInteger(raw) else { return failure }
            positie = value
        }
        let actieId = Self.truthy(body["actieId"] ?? .null) ? Self.pgText(body["actieId"]) : nil
        let naam = Self.truthy(body["naam"] ?? .null) ? Self.pgText(body["naam"]) : nil
        let now = TickedifyTime.nowMs()
        let id = TickedifyTime.newPlanningID(now: now)
        let stored: Bool = store.write { data in
            if let actieId, !data.tasks.contains(where: { $0.id == actieId }) { return false }
            let count = data.planning.filter { $0.datum == datum && $0.uur == uur && $0.userId == session.userId }.count
            let position: Int
            if let positie {
                position = positie
                if positie < count {
                    for index in data.planning.indices
                    where data.planning[index].datum == datum && data.planning[index].uur == uur
                        && data.planning[index].positie >= positie && data.planning[index].userId == session.userId
                    {
                        data.planning[index].positie += 1
                    }
                }
            } else {
                position = count
            }
            data.planning.append(
                TickedifyPlanItem(
                    id: id, actieId: actieId, datum: datum, uur: uur, positie: position, type: type, naam: naam,
                    duurMinuten: duur,
                    aangemaakt: now, userId: session.userId
                )
            )
            return true
        }
        guard stored else { return failure }
        return TickedifyHTTP.json(.object(["success": .bool(true), "id": .string(id)]), request: call.request)
    }

    /// `updateDagelijksePlanning`: every body key becomes a column; anything the UPDATE rejects, or
    /// no row of this user, answers 404.
    private func planningPut(_ call: Call, _ session: TickedifySession) -> Response {
        let notFound = TickedifyHTTP.error("Planning item niet gevonden", status: 404, request: call.request)
        guard case .object(let updates) = call.body, !updates.fields.isEmpty, let id = call.params["id"] else {
            return notFound
        }
        let updated: Bool = store.write { data in
            guard let index = data.planning.firstIndex(where: { $0.id == id && $0.userId == session.userId }) else {
                return false
            }
            var item = data.planning[index]
            for (key, value) in updates.fields {
                switch key {
                case "actieId":
                    if value == .null {
                        item.actieId = nil
                    } else {
                        guard let text = Self.pgText(value), data.tasks.contains(where: { $0.id == text }) else {
                            return false
                        }
                        item.actieId = text
                    }
                case "duurMinuten", "duur_minuten":
                    guard let v = Self.pgInteger(value) else { return false }
                    item.duurMinuten = v
                case "uur":
                    guard let v = Self.pgInteger(value), (0...23).contains(v) else { return false }
                    item.uur = v
                case "positie":
                    guard let v = Self.pgInteger(value) else { return false }
                    item.positie = v
                case "datum":
                    guard let v = Self.pgText(value).flatMap(TickedifyTime.pgDate) else { return false }
                    item.datum = v
                case "type":
                    guard let v = Self.pgText(value), ["taak", "geblokkeerd", "pauze"].contains(v) else { return false }
                    item.type = v
                case "naam":
                    item.naam = value == .null ? nil : Self.pgText(value)
                default:
                    return false
                }
            }
            data.planning[index] = item
            return true
        }
        guard updated else { return notFound }
        return TickedifyHTTP.json(.object(["success": .bool(true)]), request: call.request)
    }

    /// `DELETE FROM dagelijkse_planning WHERE id = $1`: the owner is not checked.
    private func planningDelete(_ call: Call) -> Response {
        let id = call.params["id"] ?? ""
        let deleted: Bool = store.write { data in
            guard let index = data.planning.firstIndex(where: { $0.id == id }) else { return false }
            data.planning.remove(at: index)
            return true
        }
        guard deleted else {
            return TickedifyHTTP.error("Planning item niet gevonden", status: 404, request: call.request)
        }
        return TickedifyHTTP.json(.object(["success": .bool(true)]), request: call.request)
    }

    // MARK: - Misc

    private func status(_ call: Call) -> Response {
        TickedifyHTTP.json(
            .object([
                "status": .string("running"),
                "timestamp": .string(TickedifyTime.iso(TickedifyTime.nowMs())),
                "node_version": .string("v20.20.2"),
                "env": .object([
                    "NODE_ENV": .string("production"),
                    "has_database_url": .bool(true),
                    "has_postgres_url": .bool(true),
                    "has_postgres_prisma_url": .bool(true),
                    "has_postgres_url_non_pooling": .bool(true),
                ]),
            ]), request: call.request
        )
    }

    private func version(_ call: Call) -> Response {
        TickedifyHTTP.json(
            .object([
                "version": .string("1.1.31"),
                "commit_hash": .string("unknown"),
                "deployed_at": .string(TickedifyTime.iso(TickedifyTime.nowMs())),
                "code_marker": .string("0.17.23-FINAL"),
                "features": .array(
                    ["dagelijkse-planning", "email-import", "subtaken", "bijlagen", "persistent-login"].map(
                        JSONValue.string)),
                "environment": .string("production"),
            ]), request: call.request
        )
    }

    // MARK: - JavaScript and Postgres value rules

    /// JavaScript truthiness of a JSON value.
    static func truthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d != 0 && !d.isNaN
        case .string(let s): return !s.isEmpty
        case .array, .object: return true
        }
    }

    /// `String.prototype.trim` (ECMAScript white space and line terminators).
    static func jsTrim(_ s: String) -> String {
        let extra: Set<Unicode.Scalar> = [
            "\u{FEFF}", "\u{00A0}", "\u{1680}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}",
        ]
        func isSpace(_ u: Unicode.Scalar) -> Bool {
            u.properties.isWhitespace || extra.contains(u)
        }
        let scalars = s.unicodeScalars
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
            let end = scalars.lastIndex(where: { !isSpace($0) })
        else {
            return ""
        }
        return String(scalars[start...end])
    }

    /// A parameter as node-pg sends it: strings as is, numbers and booleans as text; nil for NULL.
    static func pgText(_ value: JSONValue?) -> String? {
        switch value {
        case .none, .null: return nil
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .bool(let b): return b ? "true" : "false"
        case .array, .object: return value.map { $0.serialized }
        }
    }

    /// What an INTEGER column accepts: whole numbers, or text of one (surrounding spaces allowed).
    static func pgInteger(_ value: JSONValue?) -> Int? {
        switch value {
        case .int(let i): return Int(exactly: Int32(truncatingIfNeeded: i)) == i ? i : nil
        case .double(let d): return d == d.rounded() && abs(d) < 2_147_483_648 ? Int(d) : nil
        case .string(let s):
            return Int(s.trimmingCharacters(in: .whitespaces)).flatMap { abs($0) < 2_147_483_648 ? $0 : nil }
        default: return nil
        }
    }

    // MARK: - Faults and controls

    func faultResponse(status: Int) -> Response {
        switch status {
        case 401: return TickedifyHTTP.error("Not authenticated", status: 401)
        case 429: return TickedifyHTTP.error(Self.rateLimitMessage, status: 429)
        case 503: return TickedifyHTTP.error("Database not available", status: 503)
        case 500:
            return TickedifyHTTP.json(
                .object(["error": .string("Internal server error"), "message": .string("simulated failure")]),
                status: 500)
        default: return TickedifyHTTP.error("simulated failure", status: status)
        }
    }

    var controlRoutes: [String] {
        [
            "GET /_sim/crashes", "POST /_sim/sessions/expire", "GET /_sim/logins", "POST /_sim/ratelimit/reset",
            "GET /_sim/options",
            "POST /_sim/options", "POST /_sim/reset",
        ]
    }

    func handleControl(_ request: SimRequest) async -> Response? {
        switch (request.method, request.path) {
        case (.get, "/_sim/crashes"):
            return .json(.object(["count": .int(store.crashes)]))
        case (.post, "/_sim/sessions/expire"):
            // `{"cookie":"<tickedify.sid value>"}` expires that one session; no body, every one.
            if let body = JSONValue.parse(request.body.readableBytesView), let cookie = body["cookie"]?.stringValue {
                return .json(.object(["expired": .int(store.expireSession(cookieValue: cookie) ? 1 : 0)]))
            }
            return .json(.object(["expired": .int(store.expireAllSessions())]))
        case (.get, "/_sim/logins"):
            let ip = QueryItems(raw: request.rawQuery).value("ip") ?? "127.0.0.1"
            return .json(loginsJSON(ip: ip))
        case (.post, "/_sim/ratelimit/reset"):
            store.resetLimiter()
            return .json(loginsJSON(ip: "127.0.0.1"))
        case (.get, "/_sim/options"):
            return .json(optionsJSON)
        case (.post, "/_sim/options"), (.put, "/_sim/options"):
            guard let body = JSONValue.parse(request.body.readableBytesView), case .object(let o) = body else {
                return .simError("expected a JSON object like {\"date_style\":\"plain_date\"}")
            }
            if let value = o["date_style"] {
                guard let raw = value.stringValue, let style = TickedifySimulator.DateStyle(rawValue: raw) else {
                    return .simError("date_style must be \"utc_midnight\" or \"plain_date\"")
                }
                store.dateStyle = style
            }
            return .json(optionsJSON)
        case (.post, "/_sim/reset"):
            store.reseed()
            let (tasks, planning) = store.read { data, _ in (data.tasks.count, data.planning.count) }
            return .json(.object(["tasks": .int(tasks), "planning": .int(planning)]))
        default:
            return nil
        }
    }

    private func loginsJSON(ip: String) -> JSONValue {
        let attempts = store.loginAttempts(key: ip)
        return .object(["attempts": .int(attempts), "remaining": .int(max(0, store.options.loginLimit - attempts))])
    }

    private var optionsJSON: JSONValue {
        .object([
            "date_style": .string(store.dateStyle.rawValue),
            "seed_day": .string(store.options.seedDay),
            "time_zone": .string(store.options.timeZone.identifier),
            "current_date": .string(store.currentDate),
        ])
    }
}
