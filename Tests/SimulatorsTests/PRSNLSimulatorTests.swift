import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

/// Starts a PRSNL simulator on the shared test week, runs `body` with the shared client, and always
/// stops it.
func withPRSNLSimulator(
    _ options: PRSNLSimulator.Options = PRSNLSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone),
    _ body: (RunningSimulator, HTTPClient) async throws -> Void
) async throws {
    try await withSimulator(sharedClient: true, start: { try await PRSNLSimulator(options: options).start() }, body)
}

extension HTTPClient {
    func prsnlLogin(_ sim: RunningSimulator) async throws -> (access: String, refresh: String) {
        let r = try await send(
            .POST, sim, "/api/auth/login",
            json: #"{"email":"\#(PRSNLSimulator.demoEmail)","password":"\#(PRSNLSimulator.demoPassword)"}"#
        )
        #expect(r.status == 200)
        return (r.object["access_token"] as? String ?? "", r.object["refresh_token"] as? String ?? "")
    }

    func prsnl(_ sim: RunningSimulator, _ path: String, token: String? = nil) async throws -> SimResponse {
        try await prsnl(.GET, sim, path, token: token)
    }

    func prsnl(
        _ method: HTTPMethod, _ sim: RunningSimulator, _ path: String, token: String? = nil, json: String? = nil
    ) async throws -> SimResponse {
        try await send(method, sim, path, json: json, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }
}

extension SimResponse {
    var items: [[String: Any]] { (object["items"] as? [[String: Any]]) ?? [] }
    var itemTitles: [String] { items.compactMap { $0["title"] as? String } }
    var detail: String? { object["detail"] as? String }
}

/// The payload of a JWT, decoded without verification.
func prsnlJWTPayload(_ token: String) -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3, let bytes = PRSNLBase64URL.decode(parts[1]) else { return [:] }
    return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
}

@Suite("PRSNL simulator")
struct PRSNLSimulatorTests {
    /// Seeded for the demo user, one of them failed (listed on the timeline too: `timeline.py`
    /// reads status completed, bookmark, pending, failed and processed).
    static let demoItemCount = 18
    static let testUserTitles = ["Test Video", "Test Article", "Welcome to PRSNL"]

    // MARK: - Crypto

    @Test func sha256AndHMACMatchKnownVectors() {
        #expect(PRSNLSHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(PRSNLSHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = String(repeating: "a", count: 1000)
        #expect(PRSNLSHA256.hex(long) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        // RFC 4231 test case 2.
        let mac = PRSNLSHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(
            mac.map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // RFC 4231 test case 6: a key longer than the block size.
        let longKey = PRSNLSHA256.hmac(
            key: [UInt8](repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        )
        #expect(
            longKey.map { String(format: "%02x", $0) }.joined()
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func jwtRoundTripAndDemoToken() {
        let now = Date()
        let token = PRSNLJWT.encode(
            ["sub": .string("x"), "exp": .int(Int(now.timeIntervalSince1970) + 60)], secret: "s")
        #expect(token.hasPrefix("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."))
        guard case .valid(let payload) = PRSNLJWT.decode(token, secret: "s", now: now) else {
            Issue.record("not valid")
            return
        }
        #expect(payload["sub"] == .string("x"))
        #expect(PRSNLJWT.decode(token, secret: "other", now: now) == .invalid)
        if case .expired = PRSNLJWT.decode(token, secret: "s", now: now.addingTimeInterval(61)) {
        } else {
            Issue.record("not expired")
        }
        #expect(PRSNLJWT.decode("a.b.c", secret: "s", now: now) == .invalid)
        #expect(PRSNLJWT.decode(token + "x", secret: "s", now: now) == .invalid)

        let demo = prsnlJWTPayload(PRSNLSimulator.demoToken)
        #expect(demo["sub"] as? String == PRSNLSimulator.demoUserID)
        #expect(demo["type"] as? String == "access")
        #expect(demo["exp"] as? Int == 4_102_444_800)
    }

    @Test func uuidParsing() {
        #expect(prsnlPythonUUID("5B7C2A9E3D414F8A9C620E1F7A4B8D35") == PRSNLSimulator.demoUserID)
        #expect(prsnlPythonUUID("not-a-uuid") == nil)
        if case .success(let id) = prsnlPydanticUUID("{5B7C2A9E-3D41-4F8A-9C62-0E1F7A4B8D35}") {
            #expect(id == PRSNLSimulator.demoUserID)
        } else {
            Issue.record("braced uuid rejected")
        }
        if case .failure(let error) = prsnlPydanticUUID("abc") {
            #expect(error == "invalid length: expected length 32 for simple format, found 3")
        } else {
            Issue.record("accepted abc")
        }
        if case .failure(let error) = prsnlPydanticUUID("xyz") {
            #expect(
                error.hasPrefix(
                    "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `x` at 1"
                ))
        } else {
            Issue.record("accepted xyz")
        }
    }

    // MARK: - Health and routing

    @Test func healthAndRouting() async throws {
        try await withPRSNLSimulator { sim, client in
            #expect(sim.kind == .prsnl)
            #expect(sim.apiBaseURL == sim.baseURL)
            let health = try await client.prsnl(sim, "/api/health")
            #expect(health.status == 200)
            #expect(health.object["service"] as? String == "prsnl-backend")
            #expect(try await client.prsnl(sim, "/api/health/live").body == #"{"status":"alive"}"#)
            let deep = try await client.prsnl(sim, "/health")
            #expect(deep.status == 503)
            #expect(deep.object["overall_status"] as? String == "DOWN")
            let unknown = try await client.prsnl(sim, "/api/openapi.json")
            #expect(unknown.status == 404)
            #expect(unknown.body == #"{"detail":"Not Found"}"#)
            let controls = try await client.prsnl(sim, "/_sim")
            #expect(controls.body.contains("POST /_sim/tokens/expire"))
        }
    }

    // MARK: - Login and refresh

    @Test func loginSuccessAndFailures() async throws {
        try await withPRSNLSimulator { sim, client in
            let r = try await client.prsnl(
                .POST, sim, "/api/auth/login",
                json: #"{"email":"ALEX@example.com","password":"\#(PRSNLSimulator.demoPassword)"}"#
            )
            #expect(r.status == 200)
            #expect(r.object["token_type"] as? String == "bearer")
            #expect(r.object["expires_in"] == nil)
            let user = try #require(r.object["user"] as? [String: Any])
            #expect(user["id"] as? String == PRSNLSimulator.demoUserID)
            #expect(user["email"] as? String == PRSNLSimulator.demoEmail)
            #expect(user["name"] as? String == "Alex Jansen")
            #expect(user["is_verified"] as? Bool == true)
            #expect(r.body.hasPrefix(#"{"access_token":"eyJ"#))

            let access = prsnlJWTPayload(r.object["access_token"] as? String ?? "")
            #expect(access.keys.sorted() == ["exp", "jti", "sub", "type"])
            #expect(access["type"] as? String == "access")
            #expect(access["sub"] as? String == PRSNLSimulator.demoUserID)
            let lifetime = Double(access["exp"] as? Int ?? 0) - Date().timeIntervalSince1970
            #expect(lifetime > 1790 && lifetime <= 1800)
            let refresh = prsnlJWTPayload(r.object["refresh_token"] as? String ?? "")
            #expect(refresh["type"] as? String == "refresh")
            #expect(Double(refresh["exp"] as? Int ?? 0) - Date().timeIntervalSince1970 > 7 * 86400 - 10)

            let wrong = try await client.prsnl(
                .POST, sim, "/api/auth/login", json: #"{"email":"alex@example.com","password":"nope"}"#)
            #expect(wrong.status == 401)
            #expect(wrong.body == #"{"detail":"Invalid email or password"}"#)
            let testUser = try await client.prsnl(
                .POST, sim, "/api/auth/login", json: #"{"email":"test@example.com","password":""}"#)
            #expect(testUser.status == 401)
            let missing = try await client.prsnl(.POST, sim, "/api/auth/login", json: #"{"email":"alex@example.com"}"#)
            #expect(missing.status == 422)
            #expect(missing.body.contains(#""loc":["body","password"]"#))
            let badEmail = try await client.prsnl(
                .POST, sim, "/api/auth/login", json: #"{"email":"alex","password":"x"}"#)
            #expect(badEmail.status == 422)
            #expect(badEmail.body.contains("value is not a valid email address"))
            let notJSON = try await client.prsnl(.POST, sim, "/api/auth/login", json: "{oops")
            #expect(notJSON.status == 422)

            let auth = try await client.prsnl(sim, "/_sim/auth")
            #expect(auth.object["logins"] as? Int == 1)
            #expect(auth.object["failed_logins"] as? Int == 2)
            #expect(auth.object["active_sessions"] as? Int == 1)
        }
    }

    @Test func refreshRotatesAndRevokes() async throws {
        try await withPRSNLSimulator { sim, client in
            let (access, refresh) = try await client.prsnlLogin(sim)
            let r = try await client.prsnl(.POST, sim, "/api/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#)
            #expect(r.status == 200)
            #expect(r.object["expires_in"] as? Int == 3600)  // wrong upstream: the token lives 30 min
            #expect(r.object["token_type"] as? String == "bearer")
            let newRefresh = try #require(r.object["refresh_token"] as? String)
            #expect(newRefresh != refresh)
            #expect(r.object["access_token"] as? String != access)
            let user = try #require(r.object["user"] as? [String: Any])
            #expect(
                user.keys.sorted() == [
                    "created_at", "email", "first_name", "id", "is_active", "is_verified", "last_login_at", "last_name",
                    "onboarding_completed",
                    "updated_at", "user_type",
                ]
            )
            #expect(user["first_name"] as? String == "Alex")
            #expect(r.body.contains(#""user":{"id":""#))

            // The old refresh token was revoked.
            let reuse = try await client.prsnl(
                .POST, sim, "/api/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#)
            #expect(reuse.status == 401)
            #expect(reuse.body == #"{"detail":"Invalid or expired refresh token"}"#)
            // An access token is not a refresh token.
            let wrongType = try await client.prsnl(
                .POST, sim, "/api/auth/refresh", json: #"{"refresh_token":"\#(access)"}"#)
            #expect(wrongType.status == 401)
            let garbage = try await client.prsnl(.POST, sim, "/api/auth/refresh", json: #"{"refresh_token":"abc"}"#)
            #expect(garbage.status == 401)
            let missing = try await client.prsnl(.POST, sim, "/api/auth/refresh", json: "{}")
            #expect(missing.status == 422)

            // The rotated one works once.
            let again = try await client.prsnl(
                .POST, sim, "/api/auth/refresh", json: #"{"refresh_token":"\#(newRefresh)"}"#)
            #expect(again.status == 200)

            // Expired refresh sessions fail the same way.
            let latest = try #require(again.object["refresh_token"] as? String)
            let expired = try await client.prsnl(.POST, sim, "/_sim/tokens/expire", json: #"{"tokens":"refresh"}"#)
            #expect(expired.object["expired"] as? Int == 1)
            let afterExpiry = try await client.prsnl(
                .POST, sim, "/api/auth/refresh", json: #"{"refresh_token":"\#(latest)"}"#)
            #expect(afterExpiry.status == 401)
            #expect(afterExpiry.detail == "Invalid or expired refresh token")

            let auth = try await client.prsnl(sim, "/_sim/auth")
            #expect(auth.object["logins"] as? Int == 1)
            #expect(auth.object["refreshes"] as? Int == 2)
            #expect(auth.object["failed_refreshes"] as? Int == 4)
        }
    }

    // MARK: - Hard-required Bearer

    @Test func requiredBearerPaths() async throws {
        try await withPRSNLSimulator { sim, client in
            let none = try await client.prsnl(sim, "/api/tags")
            #expect(none.status == 401)
            #expect(none.body == #"{"detail":"Authentication required"}"#)
            let garbage = try await client.prsnl(sim, "/api/tags", token: "not.a.jwt")
            #expect(garbage.body == #"{"detail":"Authentication required"}"#)
            let basic = try await client.send(
                .GET, sim, "/api/tags", headers: [("Authorization", "Basic YWxleDpwdw==")])
            #expect(basic.status == 401)
            // X-API-Key is ignored.
            let apiKey = try await client.send(.GET, sim, "/api/tags", headers: [("X-API-Key", "anything")])
            #expect(apiKey.status == 401)
            // A token signed with another secret.
            let forged = PRSNLJWT.encode(
                ["sub": .string(PRSNLSimulator.demoUserID), "exp": .int(4_102_444_800), "type": .string("access")],
                secret: "wrong"
            )
            #expect(try await client.prsnl(sim, "/api/tags", token: forged).status == 401)

            let (access, refresh) = try await client.prsnlLogin(sim)
            #expect(try await client.prsnl(sim, "/api/tags", token: access).status == 200)
            // The token type is not checked: a refresh token works as a Bearer here.
            #expect(try await client.prsnl(sim, "/api/tags", token: refresh).status == 200)
            // Lower-case scheme is fine.
            let lower = try await client.send(.GET, sim, "/api/tags", headers: [("Authorization", "bearer \(access)")])
            #expect(lower.status == 200)
            // The static demo token.
            #expect(try await client.prsnl(sim, "/api/tags", token: PRSNLSimulator.demoToken).status == 200)

            // Forced expiry: access tokens now answer "Token has expired"; the refresh token still works.
            let expire = try await client.prsnl(.POST, sim, "/_sim/tokens/expire")
            #expect(expire.status == 200)
            #expect(expire.object["tokens"] as? String == "access")
            let expired = try await client.prsnl(sim, "/api/tags", token: access)
            #expect(expired.status == 401)
            #expect(expired.body == #"{"detail":"Token has expired"}"#)
            #expect(try await client.prsnl(sim, "/api/tags", token: PRSNLSimulator.demoToken).status == 200)
            let renewed = try await client.prsnl(
                .POST, sim, "/api/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#)
            let fresh = try #require(renewed.object["access_token"] as? String)
            #expect(try await client.prsnl(sim, "/api/tags", token: fresh).status == 200)

            _ = try await client.prsnl(.POST, sim, "/_sim/tokens/expire", json: #"{"tokens":"static"}"#)
            #expect(
                try await client.prsnl(sim, "/api/tags", token: PRSNLSimulator.demoToken).detail == "Token has expired")
            let bad = try await client.prsnl(.POST, sim, "/_sim/tokens/expire", json: #"{"tokens":"some"}"#)
            #expect(bad.status == 400)
        }
    }

    @Test func accessTokensReallyExpire() async throws {
        var options = PRSNLSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone)
        options.accessTokenLifetime = 1
        try await withPRSNLSimulator(options) { sim, client in
            let (access, _) = try await client.prsnlLogin(sim)
            try await Task.sleep(for: .milliseconds(1100))
            let r = try await client.prsnl(sim, "/api/tags", token: access)
            #expect(r.status == 401)
            #expect(r.detail == "Token has expired")
            // The timeline does not complain: it silently shows the test user's items.
            let timeline = try await client.prsnl(sim, "/api/timeline", token: access)
            #expect(timeline.status == 200)
            #expect(timeline.itemTitles == Self.testUserTitles)
        }
    }

    // MARK: - Timeline

    @Test func timelineAuthScopes() async throws {
        try await withPRSNLSimulator { sim, client in
            let everyone = try await client.prsnl(sim, "/api/timeline?limit=100")
            #expect(everyone.status == 200)
            #expect(everyone.items.count == Self.demoItemCount + 3)
            #expect(everyone.object["next_cursor"] is NSNull)

            let (access, refresh) = try await client.prsnlLogin(sim)
            let mine = try await client.prsnl(sim, "/api/timeline?limit=100", token: access)
            #expect(mine.items.count == Self.demoItemCount)
            #expect(!mine.itemTitles.contains("Test Article"))
            // Failed captures are on the timeline, as every other status it reads.
            #expect(mine.items.contains { $0["status"] as? String == "failed" })
            #expect(mine.items.contains { $0["status"] as? String == "pending" })
            #expect(mine.items.contains { $0["status"] as? String == "bookmark" })
            let staticToken = try await client.prsnl(sim, "/api/timeline?limit=100", token: PRSNLSimulator.demoToken)
            #expect(staticToken.items.count == Self.demoItemCount)

            // Anything but a valid access token falls back to the hard-coded test user.
            for token in [
                refresh, "garbage", PRSNLJWT.encode(["sub": .string(PRSNLSimulator.demoUserID)], secret: "x"),
            ] {
                let fallback = try await client.prsnl(sim, "/api/timeline", token: token)
                #expect(fallback.status == 200)
                #expect(fallback.itemTitles == Self.testUserTitles)
            }
            // A bare "Bearer" is no credentials at all: everyone's items.
            let bare = try await client.send(
                .GET, sim, "/api/timeline?limit=100", headers: [("Authorization", "Bearer")])
            #expect(bare.items.count == Self.demoItemCount + 3)
            _ = try await client.prsnl(.POST, sim, "/_sim/tokens/expire")
            let expired = try await client.prsnl(sim, "/api/timeline", token: access)
            #expect(expired.itemTitles == Self.testUserTitles)
        }
    }

    @Test func timelineShapeAndSeed() async throws {
        try await withPRSNLSimulator { sim, client in
            let r = try await client.prsnl(sim, "/api/timeline", token: PRSNLSimulator.demoToken)
            #expect(r.items.count == Self.demoItemCount)
            let first = try #require(r.items.first)
            let firstObject = String(r.body.dropFirst(#"{"items":["#.count).prefix { $0 != "}" })
            let keys = [
                "id", "title", "url", "summary", "platform", "type", "category", "thumbnail_url", "duration",
                "file_path", "status",
                "createdAt", "updatedAt", "tags", "permalink",
            ]
            let positions = keys.map { firstObject.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            #expect(first["created_at"] == nil)
            // Newest first: today's 08:20 capture (07:20Z in Amsterdam), still pending and untitled.
            #expect(first["title"] as? String == "Untitled")
            #expect(first["status"] as? String == "pending")
            #expect((first["createdAt"] as? String)?.hasPrefix("2026-11-23T07:20:") == true)
            #expect((first["createdAt"] as? String)?.hasSuffix("Z") == true)
            #expect(first["permalink"] as? String == "/articles/\(first["id"] as? String ?? "")")
            let created = r.items.compactMap { $0["createdAt"] as? String }
            #expect(created == created.sorted().reversed())
            // Several captured today and yesterday (local days).
            #expect(created.filter { $0 >= "2026-11-22T23:00:00" }.count == 3)
            #expect(created.filter { $0 >= "2026-11-21T23:00:00" && $0 < "2026-11-22T23:00:00" }.count == 2)
            // Oldest within two weeks.
            #expect(created.last.map { $0 >= "2026-11-09T23:00:00" } == true)
            let video = try #require(r.items.first { $0["type"] as? String == "video" })
            #expect(video["duration"] as? Int != nil)
            #expect(video["platform"] as? String != nil)
            let note = try #require(r.items.first { $0["type"] as? String == "note" })
            #expect(note["url"] is NSNull)
            #expect(r.items.allSatisfy { ($0["id"] as? String)?.count == 36 })
        }
    }

    /// PRSNL's bug, kept: `created_at < cursor` with no tie-break skips the rest of a group of
    /// items saved in one microsecond when a page ends inside it.
    @Test func aPageEndingInsideATiedGroupSkipsTheRest() async throws {
        try await withPRSNLSimulator { sim, client in
            let imported = try await client.prsnl(
                .POST, sim, "/_sim/import", json: #"{"user":"demo","count":3,"title":"Import"}"#)
            let ids = try #require(imported.object["ids"] as? [String])
            #expect(ids.count == 3)
            let first = try await client.prsnl(sim, "/api/timeline?limit=2", token: PRSNLSimulator.demoToken)
            let firstIDs = first.items.compactMap { $0["id"] as? String }
            #expect(Set(firstIDs).isSubset(of: Set(ids)) && firstIDs.count == 2)
            #expect(first.items.allSatisfy { $0["createdAt"] as? String == first.items[0]["createdAt"] as? String })
            let cursor = try #require(first.object["next_cursor"] as? String)
            let second = try await client.prsnl(
                sim,
                "/api/timeline?limit=100&cursor="
                    + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor),
                token: PRSNLSimulator.demoToken)
            let secondIDs = second.items.compactMap { $0["id"] as? String }
            #expect(secondIDs.count == Self.demoItemCount, "the older items only")
            #expect(Set(ids).subtracting(firstIDs).isDisjoint(with: Set(secondIDs)), "the third import is skipped")
            let bad = try await client.prsnl(.POST, sim, "/_sim/import", json: #"{"user":"nobody","count":1}"#)
            #expect(bad.status == 400)
        }
    }

    @Test func timelineCursorPaging() async throws {
        try await withPRSNLSimulator { sim, client in
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                var path = "/api/timeline?limit=5"
                if let cursor {
                    path += "&cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)
                }
                let page = try await client.prsnl(sim, path, token: PRSNLSimulator.demoToken)
                #expect(page.status == 200)
                seen += page.items.compactMap { $0["id"] as? String }
                cursor = page.object["next_cursor"] as? String
                if let cursor {
                    #expect(cursor.hasSuffix("+00:00"))
                    #expect(page.items.count == 5)
                }
                pages += 1
            } while cursor != nil && pages < 10
            // 17 items: 5+5+5+2, the last page is short so next_cursor is null.
            #expect(pages == 4)
            #expect(seen.count == Self.demoItemCount)
            #expect(Set(seen).count == seen.count)

            // Exactly full last page: one more request that comes back empty.
            let full = try await client.prsnl(
                sim, "/api/timeline?limit=\(Self.demoItemCount)", token: PRSNLSimulator.demoToken)
            let last = try #require(full.object["next_cursor"] as? String)
            let encoded = last.replacingOccurrences(of: "+", with: "%2B")
            let empty = try await client.prsnl(sim, "/api/timeline?cursor=\(encoded)", token: PRSNLSimulator.demoToken)
            #expect(empty.body == #"{"items":[],"next_cursor":null}"#)

            // An unencoded "+" becomes a space: 400.
            let raw = try await client.prsnl(sim, "/api/timeline?cursor=\(last)", token: PRSNLSimulator.demoToken)
            #expect(raw.status == 400)
            #expect(raw.body == #"{"detail":"Invalid cursor format."}"#)
            // "Z" and naive cursors are fine.
            let zulu = try await client.prsnl(
                sim, "/api/timeline?cursor=2026-11-23T00:00:00Z", token: PRSNLSimulator.demoToken)
            #expect(zulu.status == 200)
            #expect(zulu.items.count == Self.demoItemCount - 3)
            let naive = try await client.prsnl(sim, "/api/timeline?cursor=2026-11-23", token: PRSNLSimulator.demoToken)
            #expect(naive.items.count == Self.demoItemCount - 3)
            #expect(try await client.prsnl(sim, "/api/timeline?cursor=yesterday").status == 400)
            // Empty cursor is ignored, offset/start_date are silently ignored, page is parsed.
            let ignored = try await client.prsnl(
                sim, "/api/timeline?cursor=&offset=5&start_date=2026-11-20&page=3", token: PRSNLSimulator.demoToken)
            #expect(ignored.items.count == Self.demoItemCount)
        }
    }

    @Test func timelineValidation() async throws {
        try await withPRSNLSimulator { sim, client in
            let zero = try await client.prsnl(sim, "/api/timeline?limit=0")
            #expect(zero.status == 422)
            #expect(
                zero.body
                    == #"{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 1","input":"0","ctx":{"ge":1},"url":"https://errors.pydantic.dev/2.5/v/greater_than_equal"}]}"#
            )
            #expect(try await client.prsnl(sim, "/api/timeline?limit=101").status == 422)
            let text = try await client.prsnl(sim, "/api/timeline?limit=ten&page=x")
            #expect(text.status == 422)
            let types = (text.object["detail"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(types == ["int_parsing", "int_parsing"])
            #expect(try await client.prsnl(sim, "/api/timeline?limit=100").items.count == Self.demoItemCount + 3)
        }
    }

    // MARK: - Items and tags

    @Test func itemDetail() async throws {
        try await withPRSNLSimulator { sim, client in
            let timeline = try await client.prsnl(sim, "/api/timeline", token: PRSNLSimulator.demoToken)
            let pending = try #require(timeline.items.first)
            let id = try #require(pending["id"] as? String)
            let r = try await client.prsnl(sim, "/api/items/\(id)")  // no auth needed
            #expect(r.status == 200)
            #expect(r.object["status"] as? String == "completed")  // always, even while pending
            #expect((r.object["created_at"] as? String)?.hasSuffix("+00:00") == true)
            #expect(r.object["createdAt"] == nil)
            #expect(r.object["accessed_at"] as? String == r.object["created_at"] as? String)
            #expect(r.object["access_count"] as? Int == 0)
            #expect(r.object["has_transcript"] as? Bool == false)
            #expect(
                r.body.hasPrefix(
                    #"{"id":"\#(id)","title":"Untitled","url":"https://news.ycombinator.com/item?id=41234567","content":null"#
                ))
            #expect(r.body.hasSuffix(#""permalink":"/articles/\#(id)"}"#))

            let upper = try await client.prsnl(sim, "/api/items/\(id.uppercased())")
            #expect(upper.status == 200)

            let missing = try await client.prsnl(sim, "/api/items/00000000-0000-4000-8000-000000000000")
            #expect(missing.status == 404)
            #expect(missing.body == #"{"detail":"Item with ID 00000000-0000-4000-8000-000000000000 not found"}"#)
            #expect(missing.headers["x-error-code"].first == "ITEM_NOT_FOUND")

            let bad = try await client.prsnl(sim, "/api/items/42")
            #expect(bad.status == 422)
            let detail = try #require((bad.object["detail"] as? [[String: Any]])?.first)
            #expect(detail["type"] as? String == "uuid_parsing")
            #expect(detail["loc"] as? [String] == ["path", "item_id"])
        }
    }

    @Test func tagsAreUserScopedAndSorted() async throws {
        try await withPRSNLSimulator { sim, client in
            let r = try await client.prsnl(sim, "/api/tags", token: PRSNLSimulator.demoToken)
            #expect(r.status == 200)
            let tags = r.array
            let pairs = tags.map { ($0["name"] as? String ?? "", $0["count"] as? Int ?? 0) }
            #expect(pairs.first?.0 == "swift")
            #expect(pairs.first?.1 == 3)
            #expect(!pairs.contains { $0.0 == "test" })
            for (a, b) in zip(pairs, pairs.dropFirst()) {
                #expect(a.1 > b.1 || (a.1 == b.1 && a.0 < b.0))
            }
            #expect(r.body.hasPrefix(#"[{"name":"swift","count":3}"#))
            let recent = try await client.prsnl(sim, "/api/tags/recent", token: PRSNLSimulator.demoToken)
            #expect((recent.json as? [String])?.first == "to-read")
            #expect((recent.json as? [String])?.count == 10)
            #expect(try await client.prsnl(sim, "/api/tags/recent").status == 401)
        }
    }

    // MARK: - Capture

    @Test func captureLinksAndNotes() async throws {
        // A seed week in the past, so that new captures are the newest items.
        try await withPRSNLSimulator(PRSNLSimulator.Options(seedDay: "2026-01-15", timeZone: testTimeZone)) {
            sim, client in
            let token = PRSNLSimulator.demoToken
            let link = try await client.prsnl(
                .POST, sim, "/api/capture", token: token,
                json:
                    #"{"url":"https://example.org/post","title":"A post","content_type":"link","tags":["Reading","reading","AI"]}"#
            )
            #expect(link.status == 201)
            #expect(
                link.body.hasSuffix(#","status":"pending","message":"Item capture initiated","duplicate_info":null}"#))
            let id = try #require(link.object["id"] as? String)

            let timeline = try await client.prsnl(sim, "/api/timeline?limit=1", token: token)
            let top = try #require(timeline.items.first)
            #expect(top["id"] as? String == id)
            #expect(top["title"] as? String == "A post")
            #expect(top["type"] as? String == "link")
            #expect(top["status"] as? String == "pending")
            #expect(top["tags"] as? [String] == ["reading", "ai"])
            #expect(timeline.object["next_cursor"] as? String != nil)

            let detail = try await client.prsnl(sim, "/api/items/\(id)")
            #expect(detail.object["content_type"] as? String == "link")
            #expect(detail.object["status"] as? String == "completed")

            let note = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"content":"Call the plumber","content_type":"note"}"#
            )
            #expect(note.status == 201)
            let noteID = try #require(note.object["id"] as? String)
            let noteItem = try await client.prsnl(sim, "/api/items/\(noteID)")
            #expect(noteItem.object["title"] as? String == "Untitled")
            #expect(noteItem.object["type"] as? String == "note")
            #expect(noteItem.object["url"] is NSNull)

            // Content without a type: no URL, so the metadata bug is not hit; type article.
            let plain = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"content":"just text"}"#)
            #expect(plain.status == 201)

            // A summarised article keeps its type; without summarisation a URL becomes a link.
            let article = try await client.prsnl(
                .POST, sim, "/api/capture", token: token,
                json: #"{"url":"https://example.org/long-read","content_type":"article","enable_summarization":true}"#
            )
            let articleItem = try await client.prsnl(sim, "/api/items/\(article.object["id"] as? String ?? "")")
            #expect(articleItem.object["type"] as? String == "article")

            // GitHub URLs are auto-classified instead of crashing.
            let github = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"url":"https://github.com/apple/swift"}"#)
            #expect(github.status == 201)

            // The captured items count in the user's tags.
            let tags = try await client.prsnl(sim, "/api/tags", token: token)
            #expect(tags.array.contains { $0["name"] as? String == "ai" && $0["count"] as? Int == 1 })

            // Another user's token (here the refresh-token trick aside, the fallback user) can save the same URL.
            let other = PRSNLJWT.encode(
                ["sub": .string(PRSNLSimulator.testUserID), "exp": .int(4_102_444_800), "type": .string("access")],
                secret: PRSNLSimulator.demoSecretKey
            )
            let again = try await client.prsnl(
                .POST, sim, "/api/capture", token: other,
                json: #"{"url":"https://example.org/post","content_type":"link"}"#
            )
            #expect(again.status == 201)
        }
    }

    @Test func captureErrors() async throws {
        try await withPRSNLSimulator { sim, client in
            let token = PRSNLSimulator.demoToken
            let unauthenticated = try await client.prsnl(
                .POST, sim, "/api/capture", json: #"{"url":"https://x.org","content_type":"link"}"#)
            #expect(unauthenticated.status == 401)
            #expect(unauthenticated.detail == "Authentication required")

            // Upstream bug: a non-GitHub URL without an explicit content_type.
            for body in [
                #"{"url":"https://example.org/a"}"#, #"{"url":"https://example.org/a","content_type":"auto"}"#,
            ] {
                let crash = try await client.prsnl(.POST, sim, "/api/capture", token: token, json: body)
                #expect(crash.status == 500)
                #expect(
                    crash.body
                        == #"{"detail":"Failed to capture item: cannot access local variable 'metadata' where it is not associated with a value"}"#
                )
                #expect(crash.headers["x-error-code"].first == "INTERNAL_SERVER_ERROR")
            }

            let nothing = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"title":"x","tags":["a"]}"#)
            #expect(nothing.status == 400)
            #expect(nothing.body == #"{"detail":"Either URL, content, or files must be provided."}"#)
            #expect(nothing.headers["x-error-code"].first == "INVALID_INPUT")

            let badType = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"content":"x","content_type":"podcast"}"#)
            #expect(badType.status == 400)
            #expect(
                badType.detail?.hasPrefix("Invalid content_type 'podcast'. Valid types: article, audio, auto, code,")
                    == true)

            // The seeded Grug link is 9 local days before 2026-11-23: 2026-11-14.
            let duplicate = try await client.prsnl(
                .POST, sim, "/api/capture", token: token,
                json: #"{"url":"https://grugbrain.dev/","content_type":"link"}"#
            )
            #expect(duplicate.status == 400)
            #expect(
                duplicate.body
                    == #"{"detail":"This URL already exists in your knowledge base. Item: 'The Grug Brained Developer' (created 2026-11-14)"}"#
            )

            let tooLong = try await client.prsnl(
                .POST, sim, "/api/capture", token: token,
                json: #"{"content":"\#(String(repeating: "x", count: 50_001))","content_type":"note"}"#
            )
            #expect(tooLong.status == 422)
            #expect(tooLong.body.contains(#""type":"string_too_long""#))
            let badTags = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"content":"x","tags":"work"}"#)
            #expect(badTags.status == 422)
            let badLevel = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"content":"x","difficulty_level":9}"#)
            #expect(badLevel.status == 422)
            let noBody = try await client.prsnl(.POST, sim, "/api/capture", token: token)
            #expect(noBody.status == 422)
            // Auth comes before validation.
            #expect(try await client.prsnl(.POST, sim, "/api/capture").status == 401)

            // Nothing was stored by the failures.
            let timeline = try await client.prsnl(sim, "/api/timeline?limit=100", token: token)
            #expect(timeline.items.count == Self.demoItemCount)
        }
    }

    // MARK: - Search

    @Test func getSearchIsBroken() async throws {
        try await withPRSNLSimulator { sim, client in
            let q = try await client.prsnl(sim, "/api/search?q=swift&limit=20&offset=0")
            #expect(q.status == 422)
            #expect(
                q.body
                    == #"{"detail":[{"type":"missing","loc":["query","query"],"msg":"Field required","input":null,"url":"https://errors.pydantic.dev/2.5/v/missing"}]}"#
            )
            let query = try await client.prsnl(sim, "/api/search?query=swift")
            #expect(query.status == 500)
            #expect(query.body == #"{"detail":"An unexpected error occurred","code":"INTERNAL_SERVER_ERROR"}"#)
            let withToken = try await client.prsnl(sim, "/api/search?query=swift", token: PRSNLSimulator.demoToken)
            #expect(withToken.status == 500)
            // POST without the trailing slash matches the GET route's path: 405.
            let noSlash = try await client.prsnl(.POST, sim, "/api/search", json: #"{"query":"swift"}"#)
            #expect(noSlash.status == 405)
            #expect(noSlash.headers["allow"].first == "GET")
        }
    }

    @Test func enhancedSearchWorkaround() async throws {
        try await withPRSNLSimulator { sim, client in
            let r = try await client.prsnl(
                .POST, sim, "/api/search/", json: #"{"query":"swift concurrency","search_type":"keyword","limit":10}"#)
            #expect(r.status == 200)
            let results = try #require(r.object["results"] as? [[String: Any]])
            #expect(
                results.map { $0["title"] as? String ?? "" }.sorted() == [
                    "Structured concurrency in Swift, explained", "Swift concurrency: Behind the scenes",
                ])
            let first = try #require(results.first)
            #expect((first["created_at"] as? String)?.hasSuffix("+00:00") == true)
            #expect(first["search_type"] as? String == "keyword")
            #expect(first["similarity"] as? Double != nil)
            #expect(r.body.hasPrefix(#"{"results":[{"id":""#))
            #expect(r.object["total"] as? Int == 2)
            #expect(r.object["user_id"] as? String == "anonymous")
            #expect((r.object["deduplication"] as? [String: Any])?["original_count"] as? Int == 2)
            #expect((r.object["request_params"] as? [String: Any])?["include_duplicates"] as? Bool == false)
            let keys = [
                "\"results\"", "\"total\"", "\"query\"", "\"search_type\"", "\"timestamp\"", "\"deduplication\"",
                "\"user_id\"", "\"request_params\"",
            ]
            let tail = r.body[r.body.range(of: "],\"total\"")!.lowerBound...]
            let positions = keys.dropFirst().map { tail.range(of: $0 + ":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())

            // Not user-scoped: the test user's items are found too.
            let test = try await client.prsnl(
                .POST, sim, "/api/search/", json: #"{"query":"test","search_type":"keyword"}"#)
            let testTitles = (test.object["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            #expect(Set(testTitles) == ["Test Article", "Test Video", "The Grug Brained Developer"])

            // Default hybrid: keyword scores weighted by 0.3.
            let hybrid = try await client.prsnl(.POST, sim, "/api/search/", json: #"{"query":"sourdough"}"#)
            let hit = try #require((hybrid.object["results"] as? [[String: Any]])?.first)
            #expect(hit["search_type"] as? String == "hybrid")
            #expect(hit["component_scores"] != nil)
            #expect(hybrid.object["weights"] != nil)

            // Semantic needs embeddings: nothing found, with an error, still 200.
            let semantic = try await client.prsnl(
                .POST, sim, "/api/search/", json: #"{"query":"bread","search_type":"semantic"}"#)
            #expect(semantic.status == 200)
            #expect((semantic.object["results"] as? [Any])?.isEmpty == true)
            #expect(semantic.object["error"] as? String == "Failed to generate query embedding")

            // include_duplicates skips the deduplication block.
            let dupes = try await client.prsnl(
                .POST, sim, "/api/search/", json: #"{"query":"crdt","search_type":"keyword","include_duplicates":true}"#
            )
            #expect(dupes.object["deduplication"] == nil)
            #expect((dupes.object["results"] as? [Any])?.count == 2)
            let typed = try await client.prsnl(
                .POST, sim, "/api/search/", json: #"{"query":"crdt","search_type":"keyword","filters":{"type":"note"}}"#
            )
            #expect((typed.object["results"] as? [Any])?.isEmpty == true)

            // Any Bearer header breaks it.
            let authed = try await client.prsnl(
                .POST, sim, "/api/search/", token: PRSNLSimulator.demoToken,
                json: #"{"query":"swift","search_type":"keyword"}"#
            )
            #expect(authed.status == 500)
            #expect(authed.body == #"{"detail":"Search failed: 'User' object has no attribute 'get'"}"#)

            let empty = try await client.prsnl(.POST, sim, "/api/search/", json: #"{"query":""}"#)
            #expect(empty.status == 422)
            #expect(empty.body.contains("string_too_short"))
            let badType = try await client.prsnl(
                .POST, sim, "/api/search/", json: #"{"query":"x","search_type":"fuzzy"}"#)
            #expect(badType.body.contains(#""msg":"Input should be 'semantic', 'keyword' or 'hybrid'""#))
            let badLimit = try await client.prsnl(.POST, sim, "/api/search/", json: #"{"query":"x","limit":500}"#)
            #expect(badLimit.status == 422)
            // GET on the slash path is a 405 too.
            #expect(try await client.prsnl(sim, "/api/search/?query=x").status == 405)
        }
    }

    // MARK: - Rate limiting

    @Test func captureRateLimit() async throws {
        var options = PRSNLSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone)
        options.rateLimitPerMinute = 2
        try await withPRSNLSimulator(options) { sim, client in
            let token = PRSNLSimulator.demoToken
            // Unauthenticated and invalid requests do not count.
            #expect(try await client.prsnl(.POST, sim, "/api/capture", json: #"{"content":"x"}"#).status == 401)
            #expect(
                try await client.prsnl(.POST, sim, "/api/capture", token: token, json: #"{"tags":1}"#).status == 422)
            for i in 0..<2 {
                let ok = try await client.prsnl(
                    .POST, sim, "/api/capture", token: token, json: #"{"content":"note \#(i)","content_type":"note"}"#)
                #expect(ok.status == 201)
            }
            let limited = try await client.prsnl(
                .POST, sim, "/api/capture", token: token, json: #"{"content":"x","content_type":"note"}"#)
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"].first == "60")
            #expect(
                limited.body
                    == #"{"error":"rate_limit_exceeded","message":"Rate limit exceeded: 2 per 1 minute","retry_after":null}"#
            )
            // Other routes are not limited.
            for _ in 0..<5 { #expect(try await client.prsnl(sim, "/api/timeline").status == 200) }

            // Lifting the limit at runtime.
            let lifted = try await client.prsnl(.POST, sim, "/_sim/options", json: #"{"rate_limit_per_minute":null}"#)
            #expect(lifted.object["rate_limit_per_minute"] is NSNull)
            #expect(
                try await client.prsnl(
                    .POST, sim, "/api/capture", token: token, json: #"{"content":"y","content_type":"note"}"#
                ).status == 201)

            // Reset restores the configured limit with a fresh window.
            _ = try await client.prsnl(.POST, sim, "/_sim/reset")
            for _ in 0..<2 {
                #expect(
                    try await client.prsnl(
                        .POST, sim, "/api/capture", token: token, json: #"{"content":"z","content_type":"note"}"#
                    ).status == 201)
            }
            #expect(
                try await client.prsnl(
                    .POST, sim, "/api/capture", token: token, json: #"{"content":"z","content_type":"note"}"#
                ).status == 429)
        }
    }

    @Test func defaultLimitsAndSearchLimit() async throws {
        try await withPRSNLSimulator { sim, client in
            let options = try await client.prsnl(sim, "/_sim/options")
            #expect(options.object["rate_limit_per_minute"] as? Int == 30)
            #expect(options.object["search_rate_limit_per_minute"] as? Int == 50)
            #expect(options.object["seed_day"] as? String == testSeedDay)
            _ = try await client.prsnl(.POST, sim, "/_sim/options", json: #"{"search_rate_limit_per_minute":1}"#)
            #expect(try await client.prsnl(.POST, sim, "/api/search/", json: #"{"query":"x"}"#).status == 200)
            let limited = try await client.prsnl(.POST, sim, "/api/search/", json: #"{"query":"x"}"#)
            #expect(limited.status == 429)
            #expect(limited.object["message"] as? String == "Rate limit exceeded: 1 per 1 minute")
            let bad = try await client.prsnl(.POST, sim, "/_sim/options", json: #"{"rate_limit_per_minute":"many"}"#)
            #expect(bad.status == 400)
        }
        // 30 captures a minute by default.
        try await withPRSNLSimulator { sim, client in
            var statuses: [Int] = []
            for i in 0..<31 {
                let r = try await client.prsnl(
                    .POST, sim, "/api/capture", token: PRSNLSimulator.demoToken,
                    json: #"{"content":"n\#(i)","content_type":"note"}"#
                )
                statuses.append(r.status)
            }
            #expect(statuses.filter { $0 == 201 }.count == 30)
            #expect(statuses.last == 429)
        }
    }

    // MARK: - Analytics, seed, reset, faults

    @Test func analyticsTrends() async throws {
        try await withPRSNLSimulator(PRSNLSimulator.Options(timeZone: testTimeZone)) { sim, client in
            // Seeded around today, so the last 7 days have items.
            let r = try await client.prsnl(sim, "/api/analytics/trends?timeframe=7d")
            #expect(r.status == 200)
            let trends = try #require(r.object["trends"] as? [[String: Any]])
            #expect(!trends.isEmpty)
            #expect(trends.allSatisfy { ($0["date"] as? String)?.count == 10 && ($0["count"] as? Int ?? 0) > 0 })
            let bad = try await client.prsnl(sim, "/api/analytics/trends?timeframe=2w")
            #expect(bad.status == 500)
            #expect(bad.body == #"{"detail":"Failed to retrieve content trends: 400: Invalid timeframe specified."}"#)
        }
    }

    @Test func seedIsDeterministicAndResettable() async throws {
        let options = PRSNLSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone)
        let a = try PRSNLStore(options: options).allItems().map(\.id).sorted()
        let b = try PRSNLStore(options: options).allItems().map(\.id).sorted()
        #expect(a == b)
        #expect(Set(a).count == a.count)
        #expect(a.count == 21)
        let other = try PRSNLStore(options: .init(seedDay: "2026-11-24", timeZone: testTimeZone)).allItems().map(\.id)
        #expect(Set(other).isDisjoint(with: a))
        #expect(throws: SimulatorError.self) { try PRSNLStore(options: .init(seedDay: "2026-02-30")) }

        try await withPRSNLSimulator(options) { sim, client in
            _ = try await client.prsnl(
                .POST, sim, "/api/capture", token: PRSNLSimulator.demoToken,
                json: #"{"content":"x","content_type":"note"}"#
            )
            _ = try await client.prsnlLogin(sim)
            #expect(try await client.prsnl(sim, "/api/timeline?limit=100").items.count == Self.demoItemCount + 4)
            let reset = try await client.prsnl(.POST, sim, "/_sim/reset")
            #expect(reset.object["items"] as? Int == 21)
            #expect(try await client.prsnl(sim, "/api/timeline?limit=100").items.count == Self.demoItemCount + 3)
            let auth = try await client.prsnl(sim, "/_sim/auth")
            #expect(auth.object["logins"] as? Int == 0)
            #expect(auth.object["active_sessions"] as? Int == 0)
        }
    }

    @Test func customCredentialsAndFaults() async throws {
        var options = PRSNLSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone)
        options.email = "me@home.test"
        options.password = "hunter2"
        options.secretKey = "another-secret"
        try await withPRSNLSimulator(options) { sim, client in
            let old = try await client.prsnl(
                .POST, sim, "/api/auth/login",
                json: #"{"email":"\#(PRSNLSimulator.demoEmail)","password":"\#(PRSNLSimulator.demoPassword)"}"#
            )
            #expect(old.status == 401)
            let login = try await client.prsnl(
                .POST, sim, "/api/auth/login", json: #"{"email":"me@home.test","password":"hunter2"}"#)
            #expect(login.status == 200)
            // demoToken is signed with the default secret.
            #expect(try await client.prsnl(sim, "/api/tags", token: PRSNLSimulator.demoToken).status == 401)
            #expect(
                try await client.prsnl(sim, "/api/tags", token: login.object["access_token"] as? String).status == 200)

            sim.control.setFaults(SimulatorFaults(errorStatus: 503))
            let faulted = try await client.prsnl(sim, "/api/timeline")
            #expect(faulted.status == 503)
            #expect(faulted.body == #"{"detail":"simulated failure"}"#)
            sim.control.clearFaults()
            #expect(sim.control.calls("GET /api/timeline") == 1)
        }
    }

    /// An injected 429 carries `Retry-After` like PRSNL's real one (slowapi: always 60); other
    /// injected statuses do not.
    @Test func injected429CarriesRetryAfter() async throws {
        try await withPRSNLSimulator { sim, client in
            sim.control.setFaults(SimulatorFaults(errorStatus: 429))
            let limited = try await client.prsnl(
                .POST, sim, "/api/capture", token: PRSNLSimulator.demoToken,
                json: #"{"content":"x","content_type":"note"}"#)
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == ["60"])
            #expect(limited.body == #"{"detail":"simulated failure"}"#)
            sim.control.setFaults(SimulatorFaults(errorStatus: 503))
            let failed = try await client.prsnl(sim, "/api/timeline")
            #expect(failed.status == 503)
            #expect(failed.headers["retry-after"].isEmpty)
            sim.control.clearFaults()
            #expect(sim.control.calls("POST /api/capture") == 1)
        }
    }
}
