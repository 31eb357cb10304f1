import Foundation
import Model
import NIOHTTP1

/// `daygate connect kantinekoning`: find the club (`GET /tenants/search`), pick its teams
/// (`GET /teams/search`), then enroll as the app does — as a member without e-mail (the app
/// builds a one-time enrollment token itself, `KantineKoningEnrollmentToken`) or through the
/// e-mail flow (`POST /enrollments/request` sends a link to a team manager's address; the
/// person pastes the link or its token) — with `POST /enrollments/register`. The enrollment
/// (club, teams, role, token) is kept in the vault (`KantineKoningConnectedEnrollments`).
/// `--list` shows them; `--remove` tells the club (`POST /enrollments/remove-teams`, or
/// `DELETE /enrollments/tenant` for the last enrollment at a club, as the app does) and forgets it.
public struct KantineKoningConnect: BackendConnector {
    public init() {}

    public var backend: String { KantineKoningSettings.backend }

    public var summary: String {
        "finds the club, picks teams and enrolls (member without e-mail, or a manager's e-mailed link); keeps the enrollment's token"
    }

    /// A club as `/tenants/search` lists it.
    struct Club: Sendable {
        var slug: String
        var name: String
        var open: Bool
        var message: String?
    }

    public func connect(_ context: ConnectContext) async throws -> String {
        let settings = try context.settings(KantineKoningSettings.self)
        let api = API(settings: settings, context: context)
        let prompt = context.prompt
        let club = try await findClub(api, prompt: prompt)
        guard club.open else {
            throw ConnectError(
                KantineKoningErrorSentence.sentence(code: "enrollment_closed", message: club.message, status: 403))
        }
        let teams = try await pickTeams(api, club: club, prompt: prompt)
        let flow =
            try prompt.choose(
                "flow", "How do you enroll?",
                choices: [
                    ConnectChoice(key: "member", label: "as a member, without e-mail"),
                    ConnectChoice(key: "email", label: "as a team manager, with a link sent to your e-mail address"),
                ], multiple: false
            ).first ?? 0
        let enrollmentToken: String
        var email: String?
        if flow == 0 {
            enrollmentToken =
                KantineKoningEnrollmentToken(
                    tenantSlug: club.slug, tenantName: club.name, teamCodes: teams.map { $0.code ?? $0.id },
                    now: context.now()
                ).encoded
        } else {
            let address = try prompt.ask("email", "Your e-mail address (as the club knows it)")
            email = address
            // With the link already at hand (a script's second run) no new one is asked for.
            if !prompt.hasAnswer("link") {
                try await api.requestLink(email: address, club: club.slug, teamCodes: teams.map { $0.code ?? $0.id })
                prompt.say(
                    "Kantine Koning sent a link to \(address). Open the e-mail and paste the link (or its token); "
                        + "a script passes it with --link.")
            }
            let pasted = try prompt.askSecret("link", "Link or token from the e-mail")
            guard let token = KantineKoningEnrollmentToken.token(inPasted: pasted) else {
                throw ConnectError(
                    "That is not the link from the e-mail, or it has no token (the e-mail's link ends in ?token=…); nothing was kept."
                )
            }
            enrollmentToken = token
        }
        let device = try await deviceIdentifier(context)
        var enrollment = try await api.register(enrollmentToken, device: device, now: context.now())
        if enrollment.email == nil { enrollment.email = email }
        let store = KantineKoningConnectedEnrollments(vault: context.vault, profile: context.profileName)
        try await store.save(await store.all() + [enrollment])
        return """
            Enrolled at \(enrollment.tenantName) as \(enrollment.role) of \(enrollment.teams.map(\.display).joined(separator: ", ")) \
            for profile \(context.profileName) (id \(enrollment.id)).
            Kept in the vault: the enrollment and its token; the gateway uses it next to the config's enrollments.
            """
    }

    private func findClub(_ api: API, prompt: any ConnectPrompt) async throws -> Club {
        while true {
            let query = try prompt.ask("club", "Club name (part of it is enough)")
                .trimmingCharacters(in: .whitespaces)
            guard !query.isEmpty else { continue }
            let clubs = try await api.searchClubs(query)
            if clubs.isEmpty {
                if prompt.hasAnswer("club") {
                    throw ConnectError("Kantine Koning knows no club matching \"\(query)\".")
                }
                prompt.say("No club matches \"\(query)\"; try another name.")
                continue
            }
            let lowered = query.lowercased()
            if let exact = clubs.first(where: { $0.slug.lowercased() == lowered || $0.name.lowercased() == lowered }) {
                return exact
            }
            if clubs.count == 1, prompt.hasAnswer("club") { return clubs[0] }
            let choices = clubs.map { ConnectChoice(key: $0.slug, label: "\($0.name) (\($0.slug))") }
            if prompt.hasAnswer("club") {
                throw ConnectError(
                    "Several clubs match \"\(query)\": \(clubs.map(\.slug).joined(separator: ", ")); name one of them.")
            }
            let picked = try prompt.choose("club-choice", "Which club?", choices: choices, multiple: false)
            if let index = picked.first { return clubs[index] }
        }
    }

    private func pickTeams(_ api: API, club: Club, prompt: any ConnectPrompt) async throws
        -> [KantineKoningConnectedEnrollment.Team]
    {
        let answer = try prompt.ask("team", "Teams to follow (codes such as JO11-3; several separated by commas)")
        var teams: [KantineKoningConnectedEnrollment.Team] = []
        for term in answer.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !term.isEmpty {
            let found = try await api.searchTeams(club: club.slug, query: term)
            let lowered = term.lowercased()
            let team: KantineKoningConnectedEnrollment.Team
            if let exact = found.first(where: {
                $0.code?.lowercased() == lowered || $0.naam?.lowercased() == lowered || $0.id == term
            }) {
                team = exact
            } else if found.count == 1 {
                team = found[0]
            } else if found.isEmpty {
                throw ConnectError("\(club.name) has no team matching \"\(term)\".")
            } else if prompt.hasAnswer("team") {
                throw ConnectError(
                    "Several teams of \(club.name) match \"\(term)\": \(found.map(\.display).joined(separator: ", ")).")
            } else {
                let choices = found.map { ConnectChoice(key: $0.code ?? $0.id, label: $0.naam ?? $0.display) }
                let picked = try prompt.choose(
                    "team-choice", "Which team for \"\(term)\"?", choices: choices, multiple: false)
                guard let index = picked.first else { continue }
                team = found[index]
            }
            if !teams.contains(team) { teams.append(team) }
        }
        guard !teams.isEmpty else { throw ConnectError("No team was chosen; nothing was kept.") }
        return teams
    }

    /// The one hardware identifier this daygate enrolls with (kept in the vault).
    private func deviceIdentifier(_ context: ConnectContext) async throws -> String {
        if let known = await context.vault.value(profile: context.profileName, backend: backend, name: "device_id") {
            return known
        }
        let fresh = UUID().uuidString
        try await context.vault.setValue(fresh, profile: context.profileName, backend: backend, name: "device_id")
        return fresh
    }

    public func list(_ context: ConnectContext) async throws -> [String] {
        let stored = await KantineKoningConnectedEnrollments(vault: context.vault, profile: context.profileName).all()
        return stored.map { "\($0.id)  \($0.label)  enrolled \(ISO8601DateFormatter().string(from: $0.enrolledAt))" }
    }

    /// Removes the connected enrollment `id` (its id, its label or its club), telling the club first.
    public func remove(_ id: String, context: ConnectContext) async throws -> String {
        let settings = try context.settings(KantineKoningSettings.self)
        let store = KantineKoningConnectedEnrollments(vault: context.vault, profile: context.profileName)
        var stored = await store.all()
        let matches = stored.filter { $0.id == id || $0.label == id || $0.tenant == id }
        guard let target = matches.first else {
            throw ConnectError(
                "No connected enrollment is called \"\(id)\"; `daygate connect kantinekoning --list` shows them.")
        }
        guard matches.count == 1 else {
            throw ConnectError(
                "\"\(id)\" names several enrollments (\(matches.map(\.id).joined(separator: ", "))); give the id of one."
            )
        }
        let api = API(settings: settings, context: context)
        let othersAtClub = stored.contains { $0.id != target.id && $0.tenant == target.tenant }
        var told = "told the club"
        do {
            if othersAtClub {
                try await api.removeTeams(target.teams.map(\.id), token: target.token)
            } else {
                try await api.leaveClub(target.tenant, token: target.token)
            }
        } catch let error as APIError where error.status == 401 {
            told = "the club had already let it go (\(error.sentence))"
        } catch let error as APIError {
            throw ConnectError(
                "The club could not be told (\(error.sentence)); the enrollment is kept, try again later.")
        }
        stored.removeAll { $0.id == target.id }
        try await store.save(stored)
        return "Removed \(target.label) from profile \(context.profileName); \(told)."
    }

    /// `GET /enrollments/status` with each enrollment's token (the config's and the connected ones).
    public func check(_ context: OperationContext) async -> [CredentialCheck] {
        guard let configured = context.profile.kantinekoning else { return [] }
        let settings = await KantineKoningConnectedEnrollments.merged(
            configured, vault: context.vault, profile: context.profileName)
        if settings.enrollments.isEmpty {
            return [
                CredentialCheck(
                    ok: false, message: "no enrollment yet; run `daygate connect kantinekoning` to enroll")
            ]
        }
        let client = KantineKoningClient(settings: settings, context: context)
        var checks: [CredentialCheck] = []
        for enrollment in settings.enrollments {
            do {
                _ = try await client.get("/enrollments/status", enrollment: enrollment)
                checks.append(CredentialCheck(scope: enrollment.label, ok: true, message: "enrollment active"))
            } catch let error as KantineKoningTokenError {
                checks.append(
                    CredentialCheck(
                        scope: enrollment.label, ok: false,
                        message: KantineKoningErrorSentence.sentence(
                            code: error.rawCode, reason: error.reason, status: 401)))
            } catch {
                checks.append(CredentialCheck.failure(error, scope: enrollment.label, backend: backend))
            }
        }
        return checks
    }

    // MARK: - Calls

    /// A refused call: the sentence for its error code.
    struct APIError: Error {
        var status: Int
        var sentence: String
    }

    /// The enrollment calls (all under `/api/mobile/v1`).
    struct API {
        var settings: KantineKoningSettings
        var context: ConnectContext

        func call(_ method: HTTPMethod, _ path: String, body: JSONValue? = nil, token: String? = nil) async throws
            -> JSONValue
        {
            var headers: [(String, String)] = []
            if let token { headers.append(("Authorization", "Bearer \(token)")) }
            let response = try await context.http.send(
                method, url: settings.endpoint.baseURL + KantineKoningClient.prefix + path, headers: headers,
                body: try body.map { try JSONCoding.encode($0) }, timeout: settings.endpoint.timeout.seconds,
                source: context.source(KantineKoningClient.backend), gate: false,
                retry: method == .GET ? .standard : .none)
            guard response.isSuccess else {
                throw APIError(
                    status: response.status,
                    sentence: KantineKoningErrorSentence.sentence(body: response.body, status: response.status))
            }
            return (try? JSONValue(parsing: response.body)) ?? .null
        }

        /// Runs `body`, turning a refusal into a `ConnectError` with its sentence.
        func refusing<T>(_ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch let error as APIError {
                throw ConnectError(error.sentence)
            }
        }

        func searchClubs(_ query: String) async throws -> [Club] {
            let value = try await refusing {
                try await call(.GET, "/tenants/search?" + QueryString.encode([("q", query)]))
            }
            return Self.clubs(value)
        }

        /// The clubs in a `/tenants/search` answer.
        static func clubs(_ value: JSONValue) -> [Club] {
            (LenientList.items(in: value, keys: ["tenants"]) ?? []).compactMap { row in
                guard let fields = LenientFields(row), let slug = fields.string("slug") else { return nil }
                return Club(
                    slug: slug, name: fields.string("name") ?? slug, open: fields.bool("enrollment_open") ?? true,
                    message: fields.string("enrollment_message"))
            }
        }

        func searchTeams(club: String, query: String) async throws -> [KantineKoningConnectedEnrollment.Team] {
            let value = try await refusing {
                try await call(.GET, "/teams/search?" + QueryString.encode([("tenant", club), ("q", query)]))
            }
            return Self.teams(value["teams"])
        }

        static func teams(_ value: JSONValue?) -> [KantineKoningConnectedEnrollment.Team] {
            (value?.arrayValue ?? []).compactMap { row in
                guard let fields = LenientFields(row), let id = fields.string("id") else { return nil }
                return KantineKoningConnectedEnrollment.Team(
                    id: id, code: fields.string("code"), naam: fields.string("naam"))
            }
        }

        func requestLink(email: String, club: String, teamCodes: [String]) async throws {
            _ = try await refusing {
                try await call(
                    .POST, "/enrollments/request",
                    body: .object([
                        "email": .string(email), "tenant_slug": .string(club),
                        "team_codes": .array(teamCodes.map(JSONValue.string)), "platform": .string("ios"),
                    ]))
            }
        }

        func register(_ enrollmentToken: String, device: String, now: Date) async throws
            -> KantineKoningConnectedEnrollment
        {
            let value = try await refusing {
                try await call(.POST, "/enrollments/register", body: Self.registerBody(enrollmentToken, device: device))
            }
            return try Self.enrollment(value, now: now)
        }

        /// The body of `POST /enrollments/register`, as the app sends it (`app_version` and
        /// `build_number`: the app's own version and build, here daygate's).
        static func registerBody(_ enrollmentToken: String, device: String) -> JSONValue {
            .object([
                "enrollment_token": .string(enrollmentToken), "apns_device_token": .string(""),
                "platform": .string("ios"), "build_environment": .string("production"),
                "hardware_identifier": .string(device), "app_version": .string(DaygateVersion.current),
                "build_number": .string(DaygateVersion.build),
            ])
        }

        /// The enrollment in the answer to `/enrollments/register`: the club, the token, the teams.
        /// An answer whose `role` is not "member" (or that has none) is a manager's, as the app
        /// reads it (`BackendClient.registerDevice`: `roleRaw == "member" ? .member : .manager`).
        static func enrollment(_ value: JSONValue, now: Date) throws -> KantineKoningConnectedEnrollment {
            guard let fields = LenientFields(value), let tenant = fields.string("tenant_slug"), !tenant.isEmpty,
                let tenantName = fields.string("tenant_name"), !tenantName.isEmpty,
                let token = fields.string("api_token"), !token.isEmpty
            else {
                throw ConnectError(
                    "Kantine Koning accepted the enrollment but its answer lacked the club or the token.")
            }
            var teams = Self.teams(value["teams"])
            if teams.isEmpty {
                teams = (value["team_codes"]?.arrayValue ?? []).compactMap(\.stringValue).map {
                    KantineKoningConnectedEnrollment.Team(id: $0, code: $0)
                }
            }
            return KantineKoningConnectedEnrollment(
                id: String(UUID().uuidString.prefix(8)).lowercased(), tenant: tenant, tenantName: tenantName,
                role: fields.string("role") == "member" ? "member" : "manager", teams: teams, token: token,
                email: fields.string("email"),
                enrolledAt: now)
        }

        func removeTeams(_ ids: [String], token: String) async throws {
            _ = try await call(
                .POST, "/enrollments/remove-teams", body: .object(["team_codes": .array(ids.map(JSONValue.string))]),
                token: token)
        }

        func leaveClub(_ tenant: String, token: String) async throws {
            _ = try await call(
                .DELETE, "/enrollments/tenant", body: .object(["tenant_slug": .string(tenant)]), token: token)
        }
    }

    public func starterSection(email: String) -> [String] {
        [
            "kantinekoning:               # then: daygate connect kantinekoning (club, teams, enrollment)",
            "  base_url: https://kantinekoning.com",
        ]
    }
}
