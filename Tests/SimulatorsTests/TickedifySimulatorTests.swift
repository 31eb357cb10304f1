import AsyncHTTPClient
import Foundation
import Model
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

/// Starts a Tickedify simulator (seed day 2026-11-23, Amsterdam) and a client that does not follow
/// redirects, runs `body`, and always stops both.
func withTickedify(
    _ options: TickedifySimulator.Options = TickedifySimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone),
    _ body: (RunningSimulator, HTTPClient) async throws -> Void
) async throws {
    try await withSimulator(start: { try await TickedifySimulator(options: options).start() }, body)
}

/// The `key` values of a decoded JSON array that are strings (explicitly typed: the type checker
/// can pick a surprising overload for `compactMap { $0[key] as? String }` in some contexts).
func tkStrings(_ list: [[String: Any]], _ key: String) -> [String] {
    var out: [String] = []
    for item in list { if let value = item[key] as? String { out.append(value) } }
    return out
}

func tkInts(_ list: [[String: Any]], _ key: String) -> [Int] {
    var out: [Int] = []
    for item in list { if let value = item[key] as? Int { out.append(value) } }
    return out
}

extension SimResponse {
    /// `tickedify.sid=…` from the Set-Cookie header, ready for a Cookie header.
    var tickedifyCookie: String? {
        headers["set-cookie"].first.map { String($0.prefix { $0 != ";" }) }
    }
}

extension HTTPClient {
    /// Logs in with JSON and returns the response.
    func tickedifyLogin(
        _ sim: RunningSimulator, email: String = TickedifySimulator.demoEmail,
        password: String = TickedifySimulator.demoPassword
    )
        async throws -> SimResponse
    {
        let body = #"{"email":"\#(email)","wachtwoord":"\#(password)"}"#
        return try await send(.POST, sim, "/api/auth/login", json: body)
    }

    /// Logs in as the demo user and returns the cookie.
    func tickedifyCookie(_ sim: RunningSimulator) async throws -> String {
        let r = try await tickedifyLogin(sim)
        return try #require(r.tickedifyCookie)
    }

    func tickedifyGet(_ sim: RunningSimulator, _ path: String, cookie: String?) async throws -> SimResponse {
        try await send(.GET, sim, path, headers: cookie.map { [("cookie", $0)] } ?? [])
    }
}

@Suite("Tickedify simulator")
struct TickedifySimulatorTests {
    // MARK: Auth

    @Test func loginSetsSessionCookieAndRateLimitHeaders() async throws {
        try await withTickedify { sim, client in
            #expect(sim.kind == .tickedify)
            #expect(sim.apiBaseURL == "http://127.0.0.1:\(sim.port)")
            let r = try await client.tickedifyLogin(sim)
            #expect(r.status == 200)
            #expect(
                r.body
                    == #"{"success":true,"message":"Succesvol ingelogd","user":{"id":"user_1731401524190_k3x9q2m7a","email":"anna@example.org","naam":"Anna de Vries","rol":"user"}}"#
            )
            let setCookie = try #require(r.headers["set-cookie"].first)
            let pattern =
                #"^tickedify\.sid=s%3A[A-Za-z0-9_-]{32}\.[A-Za-z0-9%]+; Path=/; Expires=[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT; HttpOnly; SameSite=Lax$"#
            #expect(setCookie.range(of: pattern, options: .regularExpression) != nil, "\(setCookie)")
            #expect(!setCookie.contains("Secure"))
            #expect(r.headers["ratelimit-policy"].first == "5;w=900")
            #expect(r.headers["ratelimit-limit"].first == "5")
            #expect(r.headers["ratelimit-remaining"].first == "4")
            #expect(r.headers["ratelimit-reset"].first == "900")
            #expect(r.headers["content-type"].first == "application/json; charset=utf-8")
            #expect(r.headers["x-content-type-options"].first == "nosniff")
            #expect(r.headers["x-frame-options"].first == "DENY")
            #expect(r.headers["x-xss-protection"].first != nil)

            let cookie = try #require(r.tickedifyCookie)
            let me = try await client.tickedifyGet(sim, "/api/auth/me", cookie: cookie)
            #expect(me.status == 200)
            #expect(
                me.body
                    == #"{"authenticated":true,"hasAccess":true,"requiresUpgrade":false,"expiryType":null,"accessMessage":null,"user":{"id":"user_1731401524190_k3x9q2m7a","email":"anna@example.org","naam":"Anna de Vries","account_type":"regular","subscription_status":"active"},"betaConfig":{"beta_period_active":true,"beta_ended_at":null}}"#
            )
            // Later responses carry no Set-Cookie.
            #expect(me.headers["set-cookie"].isEmpty)
        }
    }

    @Test func loginFailures() async throws {
        try await withTickedify { sim, client in
            let missing = try await client.send(.POST, sim, "/api/auth/login", json: #"{"email":"anna@example.org"}"#)
            #expect(missing.status == 400)
            #expect(missing.body == #"{"error":"Email en wachtwoord zijn verplicht"}"#)
            let empty = try await client.send(.POST, sim, "/api/auth/login", json: #"{"email":"","wachtwoord":"x"}"#)
            #expect(empty.status == 400)
            let wrong = try await client.tickedifyLogin(sim, password: "nope")
            #expect(wrong.status == 401)
            #expect(wrong.body == #"{"error":"Ongeldige email of wachtwoord"}"#)
            #expect(wrong.headers["set-cookie"].isEmpty)
            // Case-sensitive email match.
            let upper = try await client.tickedifyLogin(sim, email: "Anna@example.org")
            #expect(upper.status == 401)
            // bcrypt.compare with a number throws: 500.
            let numeric = try await client.send(
                .POST, sim, "/api/auth/login", json: #"{"email":"anna@example.org","wachtwoord":12345}"#)
            #expect(numeric.status == 500)
            #expect(numeric.body == #"{"error":"Fout bij inloggen"}"#)
        }
    }

    @Test func urlencodedLoginAndDeactivatedAccount() async throws {
        var options = TickedifySimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone)
        options.users.append(
            .init(
                id: "user_1700000000000_gestopt00", email: "oud@example.org", password: "geheim-123", naam: "Oud",
                actief: false))
        try await withTickedify(options) { sim, client in
            let form = try await client.send(
                .POST, sim, "/api/auth/login", json: "email=anna%40example.org&wachtwoord=Tulpen-Fiets-2026%21",
                headers: [("content-type", "application/x-www-form-urlencoded")]
            )
            #expect(form.status == 200)
            #expect(form.tickedifyCookie != nil)
            let inactive = try await client.tickedifyLogin(sim, email: "oud@example.org", password: "geheim-123")
            #expect(inactive.status == 401)
            #expect(inactive.body == #"{"error":"Account is gedeactiveerd"}"#)
            // A body that is neither JSON nor a form leaves req.body empty.
            let text = try await client.send(
                .POST, sim, "/api/auth/login", json: "anna@example.org", headers: [("content-type", "text/plain")]
            )
            #expect(text.status == 400)
        }
    }

    /// The default second account's beta period ended: its login answers `requiresUpgrade`, which
    /// the real server reserves for beta accounts (a regular account whose trial ended logs in
    /// with a plain success, recorded: 118; see `TickedifyConformanceTests`).
    @Test func requiresUpgradeStillCreatesASession() async throws {
        try await withTickedify { sim, client in
            let r = try await client.tickedifyLogin(
                sim, email: TickedifySimulator.upgradeEmail, password: TickedifySimulator.upgradePassword)
            #expect(r.status == 200)
            #expect(
                r.body.hasPrefix(
                    #"{"success":true,"requiresUpgrade":true,"expiryType":"beta","message":"Login succesvol, upgrade vereist voor volledige toegang","user":{"id":"user_1733829112047_p0c8wz1re""#
                )
            )
            let cookie = try #require(r.tickedifyCookie)
            let me = try await client.tickedifyGet(sim, "/api/auth/me", cookie: cookie)
            #expect(me.status == 200)
            #expect(me.object["hasAccess"] as? Bool == false)
            #expect(me.object["requiresUpgrade"] as? Bool == true)
            #expect(me.object["expiryType"] as? String == "beta")
            #expect(me.object["accessMessage"] as? String != nil)
            // The account has no seeded data.
            let inbox = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            #expect(inbox.body == "[]")
        }
    }

    @Test func unauthenticatedShapesPerRoute() async throws {
        try await withTickedify { sim, client in
            let me = try await client.send(sim, "/api/auth/me")
            #expect(me.status == 401)
            #expect(me.body == #"{"error":"Not authenticated"}"#)
            let counts = try await client.send(sim, "/api/counts/sidebar")
            #expect(counts.status == 401)
            #expect(counts.body == #"{"error":"Not authenticated"}"#)
            let lijst = try await client.send(sim, "/api/lijst/inbox")
            #expect(lijst.status == 404)
            #expect(lijst.body == #"{"error":"Lijst niet gevonden"}"#)
            let add = try await client.send(.POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":"Melk kopen"}"#)
            #expect(add.status == 500)
            #expect(add.body == #"{"error":"Fout bij opslaan","details":"Niet ingelogd - geen geldige sessie"}"#)
            let token = try await client.send(sim, "/api/auth/generate-persistent-token")
            #expect(token.status == 401)
            #expect(token.body == #"{"error":"Authentication required"}"#)
            let tellingen = try await client.send(sim, "/api/tellingen")
            #expect(tellingen.status == 200)
            #expect(tellingen.body == "{}")
            // A forged or unsigned cookie is no session.
            let cookie = try await client.tickedifyCookie(sim)
            let tampered = String(cookie.dropLast(2)) + "xx"
            #expect(try await client.tickedifyGet(sim, "/api/auth/me", cookie: tampered).status == 401)
            let unsigned = cookie.replacingOccurrences(of: "s%3A", with: "")
            #expect(try await client.tickedifyGet(sim, "/api/auth/me", cookie: unsigned).status == 401)
            #expect(try await client.tickedifyGet(sim, "/api/auth/me", cookie: "other=1; " + cookie).status == 200)
            // Public list of lists.
            let lijsten = try await client.send(sim, "/api/lijsten")
            #expect(
                lijsten.body
                    == #"["inbox","acties","opvolgen","afgewerkte-taken","uitgesteld-wekelijks","uitgesteld-maandelijks","uitgesteld-3maandelijks","uitgesteld-6maandelijks","uitgesteld-jaarlijks","projecten-lijst","contexten"]"#
            )
        }
    }

    @Test func planningWithoutSessionDropsTheConnection() async throws {
        try await withTickedify { sim, client in
            let raw = await rawExchange(
                port: sim.port, request: "GET /api/dagelijkse-planning/2026-11-23 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(raw == .closed)
            let body = #"{"datum":"2026-11-23","uur":9,"type":"pauze","duurMinuten":15}"#
            let post = await rawExchange(
                port: sim.port,
                request:
                    "POST /api/dagelijkse-planning HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            #expect(post == .closed)
            let delete = await rawExchange(
                port: sim.port,
                request:
                    "DELETE /api/dagelijkse-planning/abc HTTP/1.1\r\nHost: x\r\nCookie: tickedify.sid=s%3Afoo.bar\r\n\r\n"
            )
            #expect(delete == .closed)
            await #expect(throws: (any Error).self) {
                _ = try await client.send(sim, "/api/dagelijkse-planning/2026-11-23")
            }
            let crashes = try await client.send(sim, "/_sim/crashes")
            #expect(crashes.body == #"{"count":4}"#)
            #expect(sim.control.calls("GET /api/dagelijkse-planning/2026-11-23") == 2)
            // The server keeps running, and other routes answer on new connections.
            let ping = try await client.send(sim, "/api/ping")
            #expect(ping.status == 200)
            #expect(ping.object["message"] as? String == "pong")
            // Express sends no `Server` header.
            let rawPing = await rawExchange(port: sim.port, request: "GET /api/ping HTTP/1.1\r\nHost: x\r\n\r\n")
            guard case .answered(let pingText) = rawPing else {
                Issue.record("no answer to a raw ping: \(rawPing)")
                return
            }
            #expect(pingText.lowercased().hasPrefix("http/1.1 200"))
            #expect(!pingText.lowercased().contains("\r\nserver:"))
            // A route that does not exist is no crash.
            let bare = try await client.send(sim, "/api/dagelijkse-planning")
            #expect(bare.status == 404)
            #expect(try await client.send(sim, "/_sim/crashes").body == #"{"count":4}"#)
        }
    }

    @Test func rateLimitCountsEveryAttempt() async throws {
        try await withTickedify { sim, client in
            // Malformed JSON fails in the body parser, before the limiter: not counted.
            let malformed = try await client.send(.POST, sim, "/api/auth/login", json: #"{"email":"#)
            #expect(malformed.status == 500)
            #expect(malformed.headers["ratelimit-limit"].isEmpty)
            #expect(try await client.send(sim, "/_sim/logins").body == #"{"attempts":0,"remaining":5}"#)

            for attempt in 1...5 {
                let r = try await client.tickedifyLogin(
                    sim, password: attempt == 3 ? TickedifySimulator.demoPassword : "wrong")
                #expect(r.status == (attempt == 3 ? 200 : 401))
                #expect(r.headers["ratelimit-remaining"].first == "\(5 - attempt)")
            }
            #expect(try await client.send(sim, "/_sim/logins").body == #"{"attempts":5,"remaining":0}"#)
            let limited = try await client.tickedifyLogin(sim)
            #expect(limited.status == 429)
            #expect(limited.body == #"{"error":"Too many authentication attempts, please try again after 15 minutes"}"#)
            // The 15-minute window starts at the first attempt: on a slow machine a few seconds
            // of it have passed by the sixth.
            let retryAfter = Int(limited.headers["retry-after"].first ?? "") ?? 0
            #expect((890...900).contains(retryAfter), "Retry-After \(retryAfter)")
            #expect(limited.headers["ratelimit-remaining"].first == "0")
            #expect(limited.headers["set-cookie"].isEmpty)
            // Still limited, and still counted.
            #expect(try await client.tickedifyLogin(sim).status == 429)
            #expect(try await client.send(sim, "/_sim/logins").body == #"{"attempts":7,"remaining":0}"#)
            // X-Forwarded-For is not trusted.
            let forwarded = try await client.send(
                .POST, sim, "/api/auth/login", json: #"{"email":"anna@example.org","wachtwoord":"x"}"#,
                headers: [("x-forwarded-for", "10.1.2.3")]
            )
            #expect(forwarded.status == 429)

            let reset = try await client.send(.POST, sim, "/_sim/ratelimit/reset")
            #expect(reset.body == #"{"attempts":0,"remaining":5}"#)
            #expect(try await client.tickedifyLogin(sim).status == 200)
        }
    }

    /// The knobs reach the answers: a 429 after `loginLimit` logins in a window of
    /// `loginWindow` (long, so a slow machine cannot let it pass between the calls).
    @Test func rateLimitWindowKnobs() async throws {
        let options = TickedifySimulator.Options(
            seedDay: testSeedDay, timeZone: testTimeZone, loginLimit: 2, loginWindow: .seconds(60))
        try await withTickedify(options) { sim, client in
            let first = try await client.tickedifyLogin(sim)
            #expect(first.headers["ratelimit-policy"].first == "2;w=60")
            #expect(try await client.tickedifyLogin(sim).status == 200)
            let third = try await client.tickedifyLogin(sim)
            #expect(third.status == 429)
            let retryAfter = Int(third.headers["retry-after"].first ?? "") ?? 0
            #expect((55...60).contains(retryAfter))
        }
    }

    /// The window itself, on the store's clock: a new window starts when the last one ended.
    @Test func theLoginWindowEndsOnTime() throws {
        let store = TickedifyStore(
            options: TickedifySimulator.Options(
                seedDay: testSeedDay, timeZone: testTimeZone, loginLimit: 2, loginWindow: .seconds(1)))
        let start: Int64 = 1_795_000_000_000
        #expect(store.hitLogin(key: "ip", now: start).totalHits == 1)
        #expect(store.hitLogin(key: "ip", now: start + 500).totalHits == 2)
        #expect(store.hitLogin(key: "ip", now: start + 999).totalHits == 3)
        #expect(store.loginAttempts(key: "ip", now: start + 999) == 3)
        #expect(store.loginAttempts(key: "ip", now: start + 1000) == 0)
        #expect(store.hitLogin(key: "ip", now: start + 1000).totalHits == 1)
    }

    @Test func sessionsLogoutAndExpiry() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            #expect(try await client.tickedifyGet(sim, "/api/counts/sidebar", cookie: cookie).status == 200)
            let expired = try await client.send(.POST, sim, "/_sim/sessions/expire")
            #expect(expired.body == #"{"expired":1}"#)
            let after = try await client.tickedifyGet(sim, "/api/counts/sidebar", cookie: cookie)
            #expect(after.status == 401)
            #expect(after.body == #"{"error":"Not authenticated"}"#)

            let second = try await client.tickedifyCookie(sim)
            let logout = try await client.send(.POST, sim, "/api/auth/logout", headers: [("cookie", second)])
            #expect(logout.status == 200)
            #expect(logout.body == #"{"success":true,"message":"Succesvol uitgelogd"}"#)
            #expect(logout.headers["set-cookie"].isEmpty)
            #expect(try await client.tickedifyGet(sim, "/api/auth/me", cookie: second).status == 401)
            // Logout without a session answers the same.
            #expect(try await client.send(.POST, sim, "/api/auth/logout").status == 200)
        }
    }

    @Test func persistentTokenLoginSkipsTheRateLimit() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let tokenResponse = try await client.tickedifyGet(
                sim, "/api/auth/generate-persistent-token", cookie: cookie)
            #expect(tokenResponse.status == 200)
            let token = try #require(tokenResponse.object["token"] as? String)
            #expect(token.count == 60)
            #expect((tokenResponse.object["url"] as? String)?.hasSuffix("/al/\(token)") == true)

            let auto = try await client.send(sim, "/al/\(token)")
            #expect(auto.status == 302)
            #expect(auto.headers["location"].first == "/app")
            let fresh = try #require(auto.tickedifyCookie)
            #expect(fresh != cookie)
            #expect(try await client.tickedifyGet(sim, "/api/auth/me", cookie: fresh).status == 200)
            #expect(try await client.send(sim, "/_sim/logins").body == #"{"attempts":1,"remaining":4}"#)

            let invalid = try await client.send(sim, "/al/deadbeef")
            #expect(invalid.status == 302)
            #expect(invalid.headers["location"].first == "/app")
            #expect(invalid.headers["set-cookie"].isEmpty)
        }
    }

    // MARK: Lists and counts

    @Test func listsAndSidebarCounts() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let inbox = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            #expect(inbox.status == 200)
            #expect(
                tkStrings(inbox.array, "tekst") == [
                    "Fietsband plakken", "Cadeau voor Sam bedenken", "Tandarts bellen voor controle",
                ])
            let keys = [
                "id", "tekst", "aangemaakt", "lijst", "verschijndatum", "duur", "type", "afgewerkt", "user_id",
                "opmerkingen", "top_prioriteit",
                "prioriteit_datum", "prioriteit", "verwijderd_op", "definitief_verwijderen_op", "projectId",
                "contextId", "herhalingType",
                "herhalingWaarde", "herhalingActief", "bijlagenCount",
            ]
            let firstObject = String(inbox.body.dropFirst().prefix { $0 != "}" })
            let positions = keys.map { firstObject.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            #expect(!inbox.body.contains("project_id"))

            let acties = try await client.tickedifyGet(sim, "/api/lijst/acties", cookie: cookie)
            let titles = tkStrings(acties.array, "tekst")
            #expect(titles.count == 7)
            #expect(titles.contains("APK auto inplannen"))  // future verschijndatum is listed …
            #expect(!titles.contains("Schuur opruimen"))  // … soft-deleted is not
            #expect(!titles.contains("Huur overmaken"))  // … nor completed
            let offerte = try #require(
                acties.array.first { $0["tekst"] as? String == "Offerte tegelzetter vergelijken" })
            #expect(offerte["verschijndatum"] as? String == "2026-11-20T00:00:00.000Z")
            #expect(offerte["prioriteit_datum"] as? String == "2026-11-23T00:00:00.000Z")
            #expect(offerte["prioriteit"] as? String == "hoog")
            #expect(offerte["top_prioriteit"] as? Int == 1)
            #expect(offerte["bijlagenCount"] as? Int == 2)
            #expect((offerte["projectId"] as? String)?.hasPrefix("project_") == true)
            #expect(
                (offerte["id"] as? String)?.range(of: #"^task_\d{13}_[0-9a-z]{9}$"#, options: .regularExpression) != nil
            )
            #expect(
                (offerte["aangemaakt"] as? String)?.range(
                    of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil)
            let mama = try #require(acties.array.first { $0["tekst"] as? String == "Mama bellen" })
            #expect(mama["herhalingActief"] as? Bool == true)
            #expect(mama["herhalingType"] as? String == "weekly-1-1")

            let counts = try await client.tickedifyGet(sim, "/api/counts/sidebar", cookie: cookie)
            #expect(counts.body == #"{"inbox":3,"acties":6,"projecten":3,"opvolgen":2,"uitgesteld":2}"#)

            let projects = try await client.tickedifyGet(sim, "/api/lijst/projecten-lijst", cookie: cookie)
            #expect(projects.array.count == 3)
            #expect(projects.body.hasPrefix(#"[{"id":"project_"#))
            #expect(
                projects.array.first?.keys.sorted() == [
                    "aangemaakt", "due_date", "id", "naam", "opmerkingen", "user_id",
                ])
            let contexts = try await client.tickedifyGet(sim, "/api/lijst/contexten", cookie: cookie)
            #expect(Set(tkStrings(contexts.array, "naam")) == ["Thuis", "Computer", "Telefoon", "Boodschappen"])
            #expect(contexts.array.first?.keys.sorted() == ["aangemaakt", "id", "naam", "user_id"])
            let done = try await client.tickedifyGet(sim, "/api/lijst/afgewerkte-taken", cookie: cookie)
            #expect(
                tkStrings(done.array, "tekst") == ["Planten water geven", "Vuilnis buiten zetten", "Huur overmaken"])

            #expect(try await client.tickedifyGet(sim, "/api/lijst/bestaat-niet", cookie: cookie).body == "[]")
            // Express routing: case-insensitive, trailing slash allowed, percent-decoded params.
            #expect(try await client.tickedifyGet(sim, "/API/Lijst/opvolgen/", cookie: cookie).array.count == 2)
            #expect(
                try await client.tickedifyGet(sim, "/api/lijst/uitgesteld%2Dwekelijks", cookie: cookie).array.count == 1
            )

            let tellingen = try await client.tickedifyGet(sim, "/api/tellingen", cookie: cookie)
            #expect(tellingen.object["acties"] as? Int == 8)  // the legacy count ignores dates and soft deletion
            #expect(tellingen.object["afgewerkte-taken"] as? Int == 3)
        }
    }

    @Test func plainDateStyleAndRuntimeSwitch() async throws {
        let options = TickedifySimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone, dateStyle: .plainDate)
        try await withTickedify(options) { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let plan = try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-23", cookie: cookie)
            #expect(plan.array.first?["datum"] as? String == "2026-11-23")
            let switched = try await client.send(.POST, sim, "/_sim/options", json: #"{"date_style":"utc_midnight"}"#)
            #expect(switched.object["date_style"] as? String == "utc_midnight")
            #expect(switched.object["seed_day"] as? String == testSeedDay)
            let again = try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-23", cookie: cookie)
            #expect(again.array.first?["datum"] as? String == "2026-11-23T00:00:00.000Z")
            #expect(try await client.send(.POST, sim, "/_sim/options", json: #"{"date_style":"local"}"#).status == 400)
        }
    }

    @Test func seedIsDeterministic() async throws {
        var bodies: [String] = []
        for _ in 0..<2 {
            try await withTickedify { sim, client in
                let cookie = try await client.tickedifyCookie(sim)
                var all = ""
                for path in [
                    "/api/lijst/inbox", "/api/lijst/acties", "/api/lijst/projecten-lijst",
                    "/api/dagelijkse-planning/2026-11-23",
                ] {
                    all += try await client.tickedifyGet(sim, path, cookie: cookie).body
                }
                bodies.append(all)
            }
        }
        #expect(bodies.count == 2)
        #expect(bodies[0] == bodies[1])
    }

    // MARK: Planning

    @Test func seededDayPlan() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let r = try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-23", cookie: cookie)
            #expect(r.status == 200)
            let items = r.array
            #expect(tkInts(items, "uur") == [9, 9, 10, 12, 13, 15, 17])
            #expect(
                tkStrings(items, "naam") == [
                    "Offerte tegelzetter vergelijken", "Mama bellen", "Belastingaangifte invullen", "Lunch",
                    "Uitnodigingen verjaardag versturen",
                    "Focus blok", "Boodschappen doen",
                ])
            #expect(tkStrings(items, "type") == ["taak", "taak", "taak", "pauze", "taak", "geblokkeerd", "taak"])
            let lunch = items[3]
            #expect(lunch["duurMinuten"] as? Int == 30)
            #expect(lunch["actieId"] is NSNull)
            #expect(lunch["actieTekst"] is NSNull)
            let first = items[0]
            #expect(first["actieTekst"] as? String == "Offerte tegelzetter vergelijken")
            #expect(first["actieDuur"] as? Int == 30)
            #expect((first["id"] as? String)?.range(of: #"^[0-9a-z]{17}$"#, options: .regularExpression) != nil)
            #expect(first["datum"] as? String == "2026-11-23T00:00:00.000Z")
            #expect(r.body.hasPrefix(#"[{"id":""#))
            let keys = [
                "id", "actieId", "datum", "uur", "positie", "type", "naam", "duurMinuten", "aangemaakt", "actieTekst",
                "projectId", "contextId", "actieDuur",
            ]
            let firstObject = String(r.body.dropFirst().prefix { $0 != "}" })
            let positions = keys.map { firstObject.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            // Every planned task is one of the open actions.
            let acties = try await client.tickedifyGet(sim, "/api/lijst/acties", cookie: cookie)
            let actionIDs = Set(tkStrings(acties.array, "id"))
            let plannedIDs = Set(tkStrings(items, "actieId"))
            #expect(plannedIDs.count == 5)
            #expect(plannedIDs.isSubset(of: actionIDs))

            // The days around it; yesterday's completed task is hidden.
            let yesterday = try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-22", cookie: cookie)
            #expect(tkStrings(yesterday.array, "naam") == ["Lunch", "Tandarts Sam"])
            #expect(
                try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-24", cookie: cookie).array.count
                    == 4)
            #expect(
                try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-21", cookie: cookie).array.count
                    == 2)
            #expect(
                try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-25", cookie: cookie).array.count
                    == 2)
            // No validation: an invalid date is an empty day.
            let invalid = try await client.tickedifyGet(sim, "/api/dagelijkse-planning/morgen", cookie: cookie)
            #expect(invalid.status == 200)
            #expect(invalid.body == "[]")
        }
    }

    @Test func planningCreateUpdateDelete() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let headers = [("cookie", cookie)]
            let day = "/api/dagelijkse-planning/2026-11-23"
            let acties = try await client.tickedifyGet(sim, "/api/lijst/acties", cookie: cookie)
            let was = try #require(acties.array.first { $0["tekst"] as? String == "Was ophangen" }?["id"] as? String)

            // Inserting at position 0 of 09:00 shifts the two seeded items.
            let created = try await client.send(
                .POST, sim, "/api/dagelijkse-planning",
                json:
                    #"{"actieId":"\#(was)","datum":"2026-11-23","uur":9,"type":"taak","naam":"Was ophangen","duurMinuten":20,"positie":0}"#,
                headers: headers
            )
            #expect(created.status == 200)
            #expect(created.body.hasPrefix(#"{"success":true,"id":""#))
            let id = try #require(created.object["id"] as? String)
            var plan = try await client.tickedifyGet(sim, day, cookie: cookie)
            let nine = plan.array.filter { $0["uur"] as? Int == 9 }
            #expect(tkStrings(nine, "naam") == ["Was ophangen", "Offerte tegelzetter vergelijken", "Mama bellen"])
            #expect(tkInts(nine, "positie") == [0, 1, 2])

            // Without a position it goes last in its hour.
            let appended = try await client.send(
                .POST, sim, "/api/dagelijkse-planning",
                json:
                    #"{"datum":"2026-11-23","uur":"9","type":"geblokkeerd","naam":"Pakket ophalen","duurMinuten":10}"#,
                headers: headers
            )
            #expect(appended.status == 200)
            plan = try await client.tickedifyGet(sim, day, cookie: cookie)
            #expect(plan.array.filter { $0["uur"] as? Int == 9 }.last?["positie"] as? Int == 3)

            // Database constraint failures are 500s.
            let failure = #"{"error":"Fout bij toevoegen aan dagelijkse planning"}"#
            for bad in [
                #"{"datum":"2026-11-23","uur":9,"type":"vergadering","duurMinuten":10}"#,
                #"{"datum":"2026-11-23","uur":24,"type":"taak","duurMinuten":10}"#,
                #"{"datum":"2026-11-23","uur":9,"type":"taak"}"#,
                #"{"uur":9,"type":"taak","duurMinuten":10}"#,
                #"{"actieId":"task_0_onbekend0","datum":"2026-11-23","uur":9,"type":"taak","duurMinuten":10}"#,
            ] {
                let r = try await client.send(.POST, sim, "/api/dagelijkse-planning", json: bad, headers: headers)
                #expect(r.status == 500)
                #expect(r.body == failure)
            }

            let update = try await client.send(
                .PUT, sim, "/api/dagelijkse-planning/\(id)", json: #"{"uur":16,"duurMinuten":25}"#, headers: headers)
            #expect(update.body == #"{"success":true}"#)
            plan = try await client.tickedifyGet(sim, day, cookie: cookie)
            #expect(plan.array.first { $0["id"] as? String == id }?["uur"] as? Int == 16)
            let badUpdate = try await client.send(
                .PUT, sim, "/api/dagelijkse-planning/\(id)", json: #"{"kleur":"rood"}"#, headers: headers)
            #expect(badUpdate.status == 404)
            #expect(badUpdate.body == #"{"error":"Planning item niet gevonden"}"#)

            let deleted = try await client.send(.DELETE, sim, "/api/dagelijkse-planning/\(id)", headers: headers)
            #expect(deleted.body == #"{"success":true}"#)
            let again = try await client.send(.DELETE, sim, "/api/dagelijkse-planning/\(id)", headers: headers)
            #expect(again.status == 404)
            #expect(again.body == #"{"error":"Planning item niet gevonden"}"#)
            #expect(try await client.send(sim, "/_sim/crashes").body == #"{"count":0}"#)
        }
    }

    // MARK: Add to inbox

    @Test func addToInboxAndItsDataLossQuirk() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let headers = [("cookie", cookie)]
            // Before: the inbox task "Cadeau" has a top priority and an attachment, "Tandarts" is planned tomorrow.
            let before = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            let cadeau = try #require(before.array.first { $0["tekst"] as? String == "Cadeau voor Sam bedenken" })
            #expect(cadeau["top_prioriteit"] as? Int == 3)
            #expect(cadeau["bijlagenCount"] as? Int == 1)
            let tomorrow = try await client.tickedifyGet(sim, "/api/dagelijkse-planning/2026-11-24", cookie: cookie)
            #expect(tomorrow.array.contains { $0["naam"] as? String == "Tandarts bellen voor controle" })

            let r = try await client.send(
                .POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":"  Melk kopen  ","lijst":"acties"}"#,
                headers: headers)
            #expect(r.status == 200)
            let taskId = try #require(r.object["taskId"] as? String)
            #expect(r.body == #"{"success":true,"taskId":"\#(taskId)"}"#)
            #expect(taskId.range(of: #"^task_\d{13}_[0-9a-z]{9}$"#, options: .regularExpression) != nil)

            let after = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            // (The test's seed day lies ahead of the clock, so the new task need not come first.)
            let added = try #require(after.array.first { $0["id"] as? String == taskId })
            #expect(added["tekst"] as? String == "Melk kopen")
            #expect(added["lijst"] as? String == "inbox")
            #expect(added["prioriteit"] as? String == "gemiddeld")
            let created = tkStrings(after.array, "aangemaakt")
            #expect(created == created.sorted(by: >))
            #expect(after.array.count == 4)
            // The delete-and-reinsert reset columns outside its INSERT and cascaded attachments and planning rows.
            let rewritten = try #require(after.array.first { $0["tekst"] as? String == "Cadeau voor Sam bedenken" })
            #expect(rewritten["top_prioriteit"] is NSNull)
            #expect(rewritten["prioriteit_datum"] is NSNull)
            #expect(rewritten["bijlagenCount"] as? Int == 0)
            #expect(rewritten["aangemaakt"] as? String == cadeau["aangemaakt"] as? String)
            #expect(rewritten["opmerkingen"] as? String == "Lego of een fiets?")
            let tomorrowAfter = try await client.tickedifyGet(
                sim, "/api/dagelijkse-planning/2026-11-24", cookie: cookie)
            #expect(!tomorrowAfter.array.contains { $0["naam"] as? String == "Tandarts bellen voor controle" })
            #expect(tomorrowAfter.array.count == 3)
            // Other lists are untouched.
            let counts = try await client.tickedifyGet(sim, "/api/counts/sidebar", cookie: cookie)
            #expect(counts.body == #"{"inbox":4,"acties":6,"projecten":3,"opvolgen":2,"uitgesteld":2}"#)

            // Validation.
            let missing = try await client.send(
                .POST, sim, "/api/taak/add-to-inbox", json: #"{"titel":"x"}"#, headers: headers)
            #expect(missing.status == 400)
            #expect(missing.body == #"{"error":"Tekst is required"}"#)
            #expect(
                try await client.send(.POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":"   "}"#, headers: headers)
                    .status == 400)
            // A number is stored as its text (recorded: 032); another type fails in trim().
            let number = try await client.send(
                .POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":42}"#, headers: headers)
            #expect(number.status == 200)
            let inbox = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            #expect(tkStrings(inbox.array, "tekst").contains("42"))
            let array = try await client.send(
                .POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":["x"]}"#, headers: headers)
            #expect(array.status == 500)
            #expect(array.body == #"{"error":"Fout bij opslaan","details":"tekst.trim is not a function"}"#)
        }
    }

    @Test func concurrentAddsLoseTasksUnlessSerialized() async throws {
        let options = TickedifySimulator.Options(
            seedDay: testSeedDay, timeZone: testTimeZone, inboxRaceWindow: .milliseconds(20), inboxRaceParties: 4)
        try await withTickedify(options) { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<4 {
                    group.addTask {
                        try await client.send(
                            .POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":"Tegelijk \#(n)"}"#,
                            headers: [("cookie", cookie)]
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // Every add answers success …
            #expect(statuses == [200, 200, 200, 200])
            // … but each rewrite put back the inbox it read (without the others' tasks) plus its
            // own: the last one wins.
            let inbox = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            let added = inbox.array.filter { ($0["tekst"] as? String)?.hasPrefix("Tegelijk") == true }.count
            #expect(added == 1)
            #expect(inbox.array.count == 3 + added)

            // One after another, nothing is lost.
            for n in 0..<3 {
                let r = try await client.send(
                    .POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":"Na elkaar \#(n)"}"#,
                    headers: [("cookie", cookie)])
                #expect(r.status == 200)
            }
            let serial = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            #expect(serial.array.filter { ($0["tekst"] as? String)?.hasPrefix("Na elkaar") == true }.count == 3)
        }
    }

    // MARK: Express behaviour

    @Test func expressErrorsAndHeaders() async throws {
        try await withTickedify { sim, client in
            let nope = try await client.send(sim, "/api/nope")
            #expect(nope.status == 404)
            #expect(nope.body == #"{"error":"Route /api/nope not found"}"#)
            #expect(nope.headers["x-frame-options"].first == "DENY")
            // A wrong method is an unknown route.
            #expect(
                try await client.send(sim, "/api/auth/login").body == #"{"error":"Route /api/auth/login not found"}"#)
            let page = try await client.send(sim, "/nope")
            #expect(page.status == 404)
            #expect(page.body.contains("<pre>Cannot GET /nope</pre>"))

            // Malformed JSON: the global error handler answers 500 with V8's message.
            let cases: [(String, String)] = [
                (#"{"tekst":"#, "Unexpected end of JSON input"),
                (#"{"tekst":"x""#, "Expected ',' or '}' after property value in JSON at position 12"),
                ("{tekst}", "Expected property name or '}' in JSON at position 1"),
                ("hello", ##"Unexpected token 'h', "#" is not valid JSON"##),
                (#"{"a":1}x"#, "Unexpected non-whitespace character after JSON at position 7"),
            ]
            for (body, message) in cases {
                let r = try await client.send(.POST, sim, "/api/taak/add-to-inbox", json: body)
                #expect(r.status == 500)
                let expected = JSONValue.object([
                    "error": .string("Internal server error"), "message": .string(message),
                ]).serialized
                #expect(r.body == expected)
            }

            // Weak ETags and 304s, like res.json.
            let lijsten = try await client.send(sim, "/api/lijsten")
            let etag = try #require(lijsten.headers["etag"].first)
            #expect(etag.hasPrefix("W/\""))
            let cached = try await client.send(.GET, sim, "/api/lijsten", headers: [("if-none-match", etag)])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)

            let status = try await client.send(sim, "/api/status")
            #expect(status.object["status"] as? String == "running")
            #expect(status.object["node_version"] as? String == "v20.20.2")
            let version = try await client.send(sim, "/api/version")
            #expect(version.object["version"] as? String == "1.1.31")
            #expect(sim.control.calls("GET /api/status") == 1)
        }
    }

    @Test func faultsUseTheBackendErrorShape() async throws {
        try await withTickedify { sim, client in
            let set = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":503}"#)
            #expect(set.status == 200)
            let r = try await client.send(sim, "/api/lijsten")
            #expect(r.status == 503)
            #expect(r.body == #"{"error":"Database not available"}"#)
            _ = try await client.send(.DELETE, sim, "/_sim/faults")
            #expect(try await client.send(sim, "/api/lijsten").status == 200)
            let index = try await client.send(sim, "/_sim")
            #expect((index.object["routes"] as? [String])?.contains("GET /_sim/crashes") == true)
        }
    }

    @Test func resetRestoresTheSeedAndRejectsBadSeedDays() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            _ = try await client.send(
                .POST, sim, "/api/taak/add-to-inbox", json: #"{"tekst":"Tijdelijk"}"#, headers: [("cookie", cookie)])
            #expect(try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie).array.count == 4)
            let reset = try await client.send(.POST, sim, "/_sim/reset")
            #expect(reset.status == 200)
            // Sessions survive a data reset.
            #expect(try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie).array.count == 3)
        }
        await #expect(throws: SimulatorError.self) {
            _ = try await TickedifySimulator(options: .init(seedDay: "2026-13-01")).start()
        }
        await #expect(throws: SimulatorError.self) {
            _ = try await TickedifySimulator(options: .init(seedDay: testSeedDay)).start(host: "0.0.0.0")
        }
    }
}
