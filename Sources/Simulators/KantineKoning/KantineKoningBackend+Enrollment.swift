import Foundation
import Hummingbird
import Model

/// The enrollment endpoints (see ``KantineKoningSimulator``).
extension KantineKoningBackend {
    static func body(_ request: SimRequest) -> JSONValue? {
        JSONValue.parse(request.body.readableBytesView)
    }

    static func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        return items.compactMap(\.stringValue)
    }

    /// The team records of `tenant` that `values` name (by code or id; `byCode`: by code only);
    /// nil when one is unknown.
    static func resolveTeams(_ values: [String], in tenant: KantineKoningTenantRecord, byCode: Bool = false)
        -> [KantineKoningTeamRecord]?
    {
        var found: [KantineKoningTeamRecord] = []
        for value in values {
            guard let team = tenant.teams.first(where: { byCode ? $0.code == value : $0.matches(value) }) else {
                return nil
            }
            if !found.contains(team) { found.append(team) }
        }
        return found
    }

    static func managers(_ store: KantineKoningStore, tenant: String, team: KantineKoningTeamRecord) -> [String] {
        store.options.tenants.first { $0.slug == tenant }?.teams.first { $0.code == team.code }?.managers ?? []
    }

    static func closed(_ tenant: KantineKoningTenantRecord) -> Response {
        json(
            .object([
                "enrollment_allowed": .bool(false), "error": .string("enrollment_closed"),
                "message": .string("Het seizoen is afgelopen. Nieuwe aanmeldingen volgen volgend seizoen."),
            ]), status: 403)
    }

    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !text.contains(where: \.isWhitespace)
    }

    static func requestEnrollment(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        guard case .object(let o)? = body(request) else { return phoenixError(400) }
        let email = o["email"]?.stringValue ?? ""
        guard isEmail(email) else { return error(422, "invalid_email", "Ongeldig e-mailadres") }
        guard let slug = o["tenant_slug"]?.stringValue, let tenant = store.tenant(slug) else {
            return error(404, "tenant_not_found", "Vereniging niet gevonden")
        }
        if tenant.seasonEnded { return closed(tenant) }
        let codes = strings(o["team_codes"]) ?? []
        if codes.isEmpty {
            // The old flow: the teams this address manages ("allowed teams").
            let allowed = tenant.teams.filter { managers(store, tenant: slug, team: $0).contains(email) }
            return json(.object(["teams": .array(allowed.map(\.json))]))
        }
        guard let teams = resolveTeams(codes, in: tenant) else {
            return error(422, "invalid_team_codes", "Onbekende teamcodes")
        }
        guard teams.allSatisfy({ managers(store, tenant: slug, team: $0).contains(email) }) else {
            return error(404, "team_manager_not_found", "Geen teammanager gevonden met dit e-mailadres")
        }
        _ = store.sendLink(email: email, tenant: slug, teamIDs: teams.map(\.id))
        return json(.object(["message": .string("E-mail verstuurd"), "success": .bool(true)]))
    }

    /// The app's self-made member token: base64 of unsigned JSON.
    static func selfMade(_ token: String) -> JSONObject? {
        var text = token
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), case .object(let o)? = JSONValue.parse([UInt8](data)),
            o["purpose"]?.stringValue == "device-enroll"
        else { return nil }
        return o
    }

    static func registerEnrollment(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        guard case .object(let o)? = body(request) else { return phoenixError(400) }
        guard let enrollmentToken = o["enrollment_token"]?.stringValue, !enrollmentToken.isEmpty else {
            return error(422, "invalid_or_expired_token", "Ongeldige of verlopen link")
        }
        let hardware = o["hardware_identifier"]?.stringValue ?? enrollmentToken
        let slug: String
        let teamValues: [String]
        let role: KantineKoningSimulator.Role
        var email: String?
        if let made = selfMade(enrollmentToken) {
            guard made["role"]?.stringValue == "member", let tenantSlug = made["tenant_slug"]?.stringValue,
                let codes = strings(made["team_codes"]), let jti = made["jti"]?.stringValue
            else { return error(422, "invalid_or_expired_token", "Ongeldige of verlopen link") }
            if case .int(let exp)? = made["exp"], Int64(exp) * Civil.microsPerSecond < store.now {
                return error(410, "enrollment_expired", "De aanmelding is verlopen")
            }
            guard let tenant = store.tenant(tenantSlug) else {
                return error(404, "tenant_not_found", "Vereniging niet gevonden")
            }
            if tenant.seasonEnded { return closed(tenant) }
            // The app puts team codes in the token it makes (an id only for a team without a
            // code, and every team here has one): an id is not a code (OnboardingHostView,
            // registerMember; the server is not public).
            guard let teams = resolveTeams(codes, in: tenant, byCode: true), !teams.isEmpty else {
                return error(422, "invalid_team_codes", "Onbekende teamcodes")
            }
            guard store.useJTI(jti) else {
                return error(422, "invalid_or_expired_token", "Ongeldige of verlopen link")
            }
            slug = tenantSlug
            teamValues = teams.map(\.id)
            role = .member
        } else {
            switch store.useLink(enrollmentToken) {
            case .unknown, .used: return error(422, "invalid_or_expired_token", "Ongeldige of verlopen link")
            case .expired: return error(410, "enrollment_expired", "De aanmelding is verlopen")
            case .ok(let link):
                guard let tenant = store.tenant(link.tenant) else {
                    return error(404, "tenant_not_found", "Vereniging niet gevonden")
                }
                if tenant.seasonEnded { return closed(tenant) }
                slug = link.tenant
                teamValues = link.teamIDs
                role = .manager
                email = link.email
            }
        }
        guard let tenant = store.tenant(slug), let teams = resolveTeams(teamValues, in: tenant) else {
            return error(422, "invalid_team_codes", "Onbekende teamcodes")
        }
        let token = store.register(
            tenant: slug, role: role, teamIDs: teams.map(\.id), email: email, hardwareID: hardware)
        return json(
            .object([
                "api_token": .string(token), "email": email.map(JSONValue.string) ?? .null,
                "role": .string(role.rawValue), "team_codes": .array(teams.map { .string($0.code) }),
                "teams": .array(teams.map(\.json)), "tenant_name": .string(tenant.name), "tenant_slug": .string(slug),
            ]))
    }

    static func removeTeams(_ store: KantineKoningStore, _ request: SimRequest) -> Response {
        if case .failure(let response) = requireSession(store, request) { return response }
        guard let token = bearer(request) else { return phoenixError(401) }
        guard case .object(let o)? = body(request), let ids = strings(o["team_codes"]) else {
            return error(422, "invalid_team_codes", "Onbekende teamcodes")
        }
        store.removeTeams(token: token, ids: ids)
        return json(.object(["success": .bool(true)]))
    }

    static func leave(_ store: KantineKoningStore, _ request: SimRequest, all: Bool) -> Response {
        let session: KantineKoningSession
        switch requireSession(store, request) {
        case .success(let s): session = s
        case .failure(let response): return response
        }
        guard let token = bearer(request) else { return phoenixError(401) }
        var slug: String? = nil
        if !all {
            guard case .object(let o)? = body(request), let named = o["tenant_slug"]?.stringValue else {
                return error(404, "tenant_not_found", "Vereniging niet gevonden")
            }
            guard named == session.tenant.slug else {
                return error(403, "tenant_mismatch", "Deze koppeling hoort bij een andere vereniging")
            }
            slug = named
        }
        store.leave(token: token, tenant: slug)
        return json(.object(["success": .bool(true)]))
    }
}
