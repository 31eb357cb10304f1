import AsyncHTTPClient
import Foundation
import Model
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

/// Monday 2026-11-23 in Amsterdam, 12:00 local (11:00Z): club A has its guaranteed evening dienst
/// today at 18:30 local (17:30Z), club B its Tuesday training-night dienst tomorrow.
private let kkNow = Date(timeIntervalSince1970: 1_795_431_600)  // 2026-11-23T11:00:00Z

private typealias KK = KantineKoningSimulator

private func kkOptions(openDienstenInList: Bool = false) -> KK.Options {
    KK.Options(seedDay: testSeedDay, timeZone: testTimeZone, now: kkNow, openDienstenInList: openDienstenInList)
}

/// Starts a Kantine Koning simulator, runs `body` with the shared client, and always stops it.
private func withKantineKoning(
    _ options: KK.Options = kkOptions(),
    _ body: (RunningSimulator, HTTPClient) async throws -> Void
) async throws {
    try await withSimulator(sharedClient: true, start: { try await KK(options: options).start() }, body)
}

private func kkAuth(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

private let kkDienstenPath = "/api/mobile/v1/diensten"

extension SimResponse {
    fileprivate var kkDiensten: [[String: Any]] { (object["diensten"] as? [[String: Any]]) ?? [] }
    fileprivate var kkDienst: [String: Any] { (object["dienst"] as? [String: Any]) ?? [:] }
}

private func kkTeamCode(_ d: [String: Any]) -> String? { (d["team"] as? [String: Any])?["code"] as? String }
private func kkIDs(_ list: [[String: Any]]) -> [String] { list.compactMap { $0["id"] as? String } }

private func kkGet(_ client: HTTPClient, _ sim: RunningSimulator, _ path: String, token: String? = nil) async throws
    -> SimResponse
{
    try await client.send(.GET, sim, path, headers: token.map(kkAuth) ?? [])
}

/// The first dienst in `list` passing `filter`.
private func kkPick(_ list: [[String: Any]], _ filter: ([String: Any]) -> Bool) throws -> [String: Any] {
    let found = list.first(where: filter)
    return try #require(found)
}

private func kkIsFuture(_ d: [String: Any]) -> Bool { (d["start_tijd"] as? String ?? "") > "2026-11-23T11:00:00Z" }

@Suite("Kantine Koning simulator")
struct KantineKoningSimulatorTests {
    // MARK: Diensten

    @Test func managerSeesOwnTeamsAndTodaysDienst() async throws {
        try await withKantineKoning { sim, client in
            #expect(sim.kind == .kantinekoning)
            #expect(sim.apiBaseURL == sim.baseURL)
            let r = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&future_days=60", token: KK.demoManagerToken)
            #expect(r.status == 200)
            #expect(r.headers["content-type"].first == "application/json; charset=utf-8")
            let list = r.kkDiensten
            #expect(list.count >= 8)
            #expect(Set(list.compactMap(kkTeamCode)) == ["JO11-3", "JO11-5"])
            #expect(list.allSatisfy { $0["tenant_id"] as? String == "vvwilhelmus" })
            // Today (Monday) at 18:30 local: the guaranteed dienst of the first team.
            let today = try kkPick(list) { $0["start_tijd"] as? String == "2026-11-23T17:30:00Z" }
            #expect(kkTeamCode(today) == "JO11-3")
            #expect(today["eind_tijd"] as? String == "2026-11-23T20:30:00Z")
            // Seeded window reaches back two weeks (past_days defaults to 365).
            let starts = list.compactMap { $0["start_tijd"] as? String }
            #expect(starts == starts.sorted())
            #expect(starts.contains { $0 < "2026-11-14T00:00:00Z" })
            #expect(starts.contains { $0 > "2026-12-10T00:00:00Z" })
        }
    }

    @Test func dienstShapeAndDatetimes() async throws {
        try await withKantineKoning { sim, client in
            let r = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
            let first = String(r.body.dropFirst(#"{"diensten":["#.count).prefix { $0 != "}" })
            #expect(first.hasPrefix(#"{"aanmeldingen":["#))
            // Keys in Jason's (alphabetical) order.
            let keys = [
                "aanmeldingen", "aanmeldingen_count", "dienst_type", "eind_tijd", "id", "locatie_naam",
                "minimum_bemanning",
                "notification_token", "offered_for_transfer", "start_tijd", "status", "team", "tenant_id", "updated_at",
            ]
            let object = try #require(r.kkDiensten.first)
            #expect(Set(object.keys) == Set(keys))
            let dienstJSON = try #require(r.body.range(of: #""aanmeldingen":"#)).lowerBound
            let tail = r.body[dienstJSON...]
            let positions = keys.map { tail.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            let seconds = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/#
            let micros = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/#
            for d in r.kkDiensten {
                #expect((d["start_tijd"] as? String)?.wholeMatch(of: seconds) != nil)
                #expect((d["eind_tijd"] as? String)?.wholeMatch(of: seconds) != nil)
                #expect((d["updated_at"] as? String)?.wholeMatch(of: micros) != nil)
                let names = d["aanmeldingen"] as? [String] ?? []
                #expect(d["aanmeldingen_count"] as? Int == names.count)
                #expect(names.allSatisfy { $0.count <= 15 })
                #expect(d["status"] as? String == "ingepland")
                let type = try #require(d["dienst_type"] as? [String: Any])
                #expect(type["icon"] as? String != nil && type["naam"] as? String != nil)
                #expect(d["notification_token"] is NSNull)
                let team = try #require(d["team"] as? [String: Any])
                #expect((team["id"] as? String)?.count == 36)
            }
            // Past diensten are staffed; some future ones still need people.
            let past = r.kkDiensten.filter { !kkIsFuture($0) }
            #expect(
                past.allSatisfy { ($0["aanmeldingen_count"] as? Int ?? 0) >= ($0["minimum_bemanning"] as? Int ?? 0) })
            let future = r.kkDiensten.filter(kkIsFuture)
            #expect(
                future.contains { ($0["aanmeldingen_count"] as? Int ?? 0) < ($0["minimum_bemanning"] as? Int ?? 0) })
        }
    }

    @Test func memberAndManagerOverlapWithSameUpdatedAt() async throws {
        try await withKantineKoning { sim, client in
            let manager = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&future_days=60", token: KK.demoManagerToken)
            let member = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&future_days=60", token: KK.demoMemberToken)
            #expect(member.status == 200)
            #expect(Set(member.kkDiensten.compactMap(kkTeamCode)) == ["JO13-1", "JO11-5"])
            let shared = Set(kkIDs(manager.kkDiensten)).intersection(kkIDs(member.kkDiensten))
            #expect(shared.count >= 2)
            let sharedFuture = member.kkDiensten.filter { shared.contains($0["id"] as? String ?? "") && kkIsFuture($0) }
            #expect(!sharedFuture.isEmpty)
            for id in shared {
                let a = try kkPick(manager.kkDiensten) { $0["id"] as? String == id }
                let b = try kkPick(member.kkDiensten) { $0["id"] as? String == id }
                #expect(a["updated_at"] as? String == b["updated_at"] as? String)
                #expect(kkTeamCode(a) == "JO11-5")
            }
        }
    }

    @Test func clubBMemberSeesClubBOnly() async throws {
        try await withKantineKoning { sim, client in
            let b = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=agovv&future_days=60", token: KK.demoClubBMemberToken)
            #expect(b.status == 200)
            #expect(Set(b.kkDiensten.compactMap(kkTeamCode)) == ["JO10-5"])
            #expect(b.kkDiensten.allSatisfy { $0["tenant_id"] as? String == "agovv" })
            // Tomorrow's training-night dienst (Tuesday 18:30 local).
            #expect(b.kkDiensten.contains { $0["start_tijd"] as? String == "2026-11-24T17:30:00Z" })
            let a = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
            #expect(Set(kkIDs(a.kkDiensten)).isDisjoint(with: kkIDs(b.kkDiensten)))
            // Without `tenant` (deprecated fetchAllDiensten) the token's tenant is used.
            let noTenant = try await kkGet(
                client, sim, kkDienstenPath + "?future_days=60", token: KK.demoClubBMemberToken)
            #expect(kkIDs(noTenant.kkDiensten) == kkIDs(b.kkDiensten))
        }
    }

    @Test func windowParameters() async throws {
        try await withKantineKoning { sim, client in
            let token = KK.demoManagerToken
            let all = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: token).kkDiensten
            let futureOnly = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&past_days=0", token: token
            ).kkDiensten
            #expect(!futureOnly.isEmpty && futureOnly.allSatisfy(kkIsFuture))
            #expect(futureOnly.count == all.filter(kkIsFuture).count)
            let pastOnly = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&future_days=0", token: token
            ).kkDiensten
            #expect(!pastOnly.isEmpty && !pastOnly.contains(where: kkIsFuture))
            let nextWeek = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&past_days=0&future_days=7", token: token)
            #expect(nextWeek.kkDiensten.allSatisfy { ($0["start_tijd"] as? String ?? "") <= "2026-11-30T11:00:00Z" })
            #expect(nextWeek.kkDiensten.count < futureOnly.count)
            let oneWeekBack = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&past_days=7&future_days=0", token: token)
            #expect(oneWeekBack.kkDiensten.allSatisfy { ($0["start_tijd"] as? String ?? "") >= "2026-11-16T11:00:00Z" })
            // An unparsable value falls back to the default.
            let junk = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&future_days=abc", token: token)
            #expect(kkIDs(junk.kkDiensten) == kkIDs(all))
        }
    }

    @Test func tenantParameterChecks() async throws {
        try await withKantineKoning { sim, client in
            // Another club than the token's: no refusal the contract lists; the token's teams
            // see nothing there.
            let mismatch = try await kkGet(client, sim, kkDienstenPath + "?tenant=agovv", token: KK.demoManagerToken)
            #expect(mismatch.status == 200)
            #expect(mismatch.kkDiensten.isEmpty)
            #expect(mismatch.object["error"] == nil)
            let unknown = try await kkGet(client, sim, kkDienstenPath + "?tenant=nope", token: KK.demoManagerToken)
            #expect(unknown.status == 404)
            #expect(unknown.body == #"{"error":"tenant_not_found","message":"Vereniging niet gevonden"}"#)
        }
    }

    @Test func openDienstenOnlyWithKnobOrAvailable() async throws {
        try await withKantineKoning { sim, client in
            let list = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
            #expect(!list.body.contains(#""team":null"#))
            let available = try await kkGet(client, sim, kkDienstenPath + "/available", token: KK.demoManagerToken)
            #expect(available.status == 200)
            #expect(available.kkDiensten.contains { $0["team"] is NSNull })
            #expect(available.kkDiensten.allSatisfy(kkIsFuture))
            // The only dienst offered for transfer belongs to the manager's own JO11-5: not listed.
            #expect(available.kkDiensten.allSatisfy { $0["team"] is NSNull })
            let member = try await kkGet(client, sim, kkDienstenPath + "/available", token: KK.demoMemberToken)
            #expect(member.status == 403)
            #expect(member.object["error"] as? String == "team_access_denied")
        }
        var options = kkOptions(openDienstenInList: true)
        options.enrollments.append(
            KK.Enrollment(tenant: "vvwilhelmus", role: .manager, token: "h1", label: "H1", teamCodes: ["H1"]))
        try await withKantineKoning(options) { sim, client in
            let h1 = try await kkGet(client, sim, kkDienstenPath + "/available", token: "h1")
            let offered = try kkPick(h1.kkDiensten) { $0["offered_for_transfer"] as? Bool == true }
            #expect(kkTeamCode(offered) == "JO11-5")
            let excluded = try await kkGet(
                client, sim, kkDienstenPath + "/available?current_team_code=JO11-5", token: "h1")
            #expect(excluded.kkDiensten.allSatisfy { $0["team"] is NSNull })
            let list = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoMemberToken)
            let open = list.kkDiensten.filter { $0["team"] is NSNull }
            #expect(!open.isEmpty)
            #expect(open.allSatisfy { $0["aanmeldingen_count"] as? Int == 0 })
        }
    }

    @Test func dienstDetail() async throws {
        try await withKantineKoning { sim, client in
            let list = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
            let id = try #require(kkIDs(list.kkDiensten).first)
            let detail = try await kkGet(
                client, sim, kkDienstenPath + "/\(id)?tenant=vvwilhelmus", token: KK.demoManagerToken)
            #expect(detail.status == 200)
            #expect(detail.kkDienst["id"] as? String == id)
            let other = try await kkGet(client, sim, kkDienstenPath + "/\(id)", token: KK.demoClubBMemberToken)
            #expect(other.status == 404)
            #expect(other.object["error"] as? String == "dienst_not_found")
        }
    }

    // MARK: Auth

    @Test func authErrors() async throws {
        try await withKantineKoning { sim, client in
            let path = kkDienstenPath + "?tenant=vvwilhelmus&future_days=60"
            let missing = try await kkGet(client, sim, path)
            #expect(missing.status == 401)
            #expect(missing.object["error"] as? String == "unauthorized")
            #expect(missing.object["message"] as? String != nil)
            let basic = try await client.send(.GET, sim, path, headers: [("Authorization", "Basic Zm9vOmJhcg==")])
            #expect(basic.status == 401)
            let unknown = try await kkGet(client, sim, path, token: "SFMyNTY.bm9wZQ.bm9wZQ")
            #expect(unknown.status == 401)
            #expect(unknown.body == #"{"error":"invalid_token"}"#)
            let revoked = try await kkGet(client, sim, path, token: KK.revokedToken)
            #expect(revoked.status == 401)
            #expect(revoked.object["error"] as? String == "token_revoked")
            #expect(revoked.object["reason"] as? String == "admin_revoked")
            let ended = try await kkGet(client, sim, kkDienstenPath + "?tenant=sc-emma", token: KK.seasonEndedToken)
            #expect(ended.status == 401)
            #expect(ended.object["error"] as? String == "token_revoked")
            #expect(ended.object["reason"] as? String == "season_ended")
            #expect(ended.body.hasPrefix(#"{"error":"token_revoked","message":""#))
            #expect(ended.body.hasSuffix(#","reason":"season_ended"}"#))
            // The scheme is case-insensitive.
            let lower = try await client.send(
                .GET, sim, path, headers: [("Authorization", "bearer \(KK.demoManagerToken)")])
            #expect(lower.status == 200)
        }
    }

    @Test func controlRoutesRevokeForgetSeasonEndAndReset() async throws {
        try await withKantineKoning { sim, client in
            let b = kkDienstenPath + "?tenant=agovv"
            let member = kkDienstenPath + "?tenant=vvwilhelmus"

            let revoke = try await client.send(
                .POST, sim, "/_sim/tokens/revoke", json: #"{"token":"\#(KK.demoMemberToken)","reason":"team_removed"}"#)
            #expect(revoke.status == 200)
            let r1 = try await kkGet(client, sim, member, token: KK.demoMemberToken)
            #expect(r1.status == 401 && r1.object["reason"] as? String == "team_removed")
            // Other enrollments of the same tenant keep working.
            #expect(try await kkGet(client, sim, member, token: KK.demoManagerToken).status == 200)

            let forget = try await client.send(
                .POST, sim, "/_sim/tokens/forget", json: #"{"token":"\#(KK.demoManagerToken)"}"#)
            #expect(forget.status == 200)
            let r2 = try await kkGet(client, sim, member, token: KK.demoManagerToken)
            #expect(r2.status == 401 && r2.body == #"{"error":"device_not_found"}"#)

            let end = try await client.send(.POST, sim, "/_sim/tenants/agovv/season-end")
            #expect(end.status == 200)
            #expect(end.object["tokens_revoked"] as? Int == 1)
            let r3 = try await kkGet(client, sim, b, token: KK.demoClubBMemberToken)
            #expect(r3.status == 401 && r3.object["reason"] as? String == "season_ended")

            let states = try await client.send(sim, "/_sim/enrollments")
            let rows = (states.object["enrollments"] as? [[String: Any]]) ?? []
            #expect(rows.count == 5)
            #expect(rows.contains { $0["status"] as? String == "device_not_found" })

            let unknownToken = try await client.send(.POST, sim, "/_sim/tokens/revoke", json: #"{"token":"zzz"}"#)
            #expect(unknownToken.status == 404)
            let unknownTenant = try await client.send(.POST, sim, "/_sim/tenants/nope/season-end")
            #expect(unknownTenant.status == 404)

            let reset = try await client.send(.POST, sim, "/_sim/reset")
            #expect(reset.status == 200)
            #expect(try await kkGet(client, sim, member, token: KK.demoMemberToken).status == 200)
            #expect(try await kkGet(client, sim, member, token: KK.demoManagerToken).status == 200)
            #expect(try await kkGet(client, sim, b, token: KK.demoClubBMemberToken).status == 200)
            // Configured states come back too.
            #expect(try await kkGet(client, sim, member, token: KK.revokedToken).status == 401)
        }
    }

    // MARK: Volunteers

    private static func futureDienst(
        _ client: HTTPClient, _ sim: RunningSimulator, team: String, token: String = KK.demoManagerToken
    ) async throws -> [String: Any] {
        let list = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: token)
        return try kkPick(list.kkDiensten) { kkTeamCode($0) == team && kkIsFuture($0) }
    }

    private static func volunteerPath(_ id: String) -> String { kkDienstenPath + "/\(id)/volunteer?tenant=vvwilhelmus" }

    @Test func addAndRemoveVolunteer() async throws {
        try await withKantineKoning { sim, client in
            let dienst = try await Self.futureDienst(client, sim, team: "JO11-5")
            let id = try #require(dienst["id"] as? String)
            let before = dienst["aanmeldingen"] as? [String] ?? []
            let added = try await client.send(
                .POST, sim, Self.volunteerPath(id), json: #"{"naam":"  Anne Marie  "}"#,
                headers: kkAuth(KK.demoManagerToken))
            #expect(added.status == 200)
            #expect(added.kkDienst["aanmeldingen"] as? [String] == before + ["Anne Marie"])
            #expect(added.kkDienst["aanmeldingen_count"] as? Int == before.count + 1)
            #expect(added.kkDienst["updated_at"] as? String == "2026-11-23T11:00:00.000000Z")
            #expect((added.kkDienst["team"] as? [String: Any])?["code"] as? String == "JO11-5")

            // The member enrollment sees the same row, same updated_at.
            let member = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoMemberToken)
            let seen = try kkPick(member.kkDiensten) { $0["id"] as? String == id }
            #expect(seen["updated_at"] as? String == "2026-11-23T11:00:00.000000Z")
            #expect((seen["aanmeldingen"] as? [String])?.contains("Anne Marie") == true)

            // The exact name only: "anne marie" is not "Anne Marie".
            let otherCase = try await client.send(
                .DELETE, sim, Self.volunteerPath(id) + "&naam=anne%20marie", headers: kkAuth(KK.demoManagerToken))
            #expect(otherCase.status == 404)
            #expect(otherCase.object["error"] as? String == "volunteer_not_found")
            let removed = try await client.send(
                .DELETE, sim, Self.volunteerPath(id) + "&naam=Anne%20Marie", headers: kkAuth(KK.demoManagerToken))
            #expect(removed.status == 200)
            #expect(removed.kkDienst["aanmeldingen"] as? [String] == before)

            let again = try await client.send(
                .DELETE, sim, Self.volunteerPath(id) + "&naam=Anne+Marie", headers: kkAuth(KK.demoManagerToken))
            #expect(again.status == 404)
            #expect(again.object["error"] as? String == "volunteer_not_found")

            // `naam` in the query string works for POST too (Phoenix merges params).
            let viaQuery = try await client.send(
                .POST, sim, Self.volunteerPath(id) + "&naam=Kees", headers: kkAuth(KK.demoManagerToken))
            #expect(viaQuery.status == 200)
        }
    }

    @Test func volunteerValidation() async throws {
        try await withKantineKoning { sim, client in
            let dienst = try await Self.futureDienst(client, sim, team: "JO11-3")
            let id = try #require(dienst["id"] as? String)
            let path = Self.volunteerPath(id)
            let manager = kkAuth(KK.demoManagerToken)

            let fifteen = try await client.send(
                .POST, sim, path, json: #"{"naam":"Maximiliaanjans"}"#, headers: manager)
            #expect(fifteen.status == 200)
            // The 15-character limit and "no duplicates" are the app's UI rules, not refusals the
            // contract lists: the server stores what it is sent.
            let sixteen = try await client.send(
                .POST, sim, path, json: #"{"naam":"Maximiliaanjanss"}"#, headers: manager)
            #expect(sixteen.status == 200)
            #expect((sixteen.kkDienst["aanmeldingen"] as? [String])?.contains("Maximiliaanjanss") == true)
            let accents = try await client.send(
                .POST, sim, path, json: #"{"naam":"Zoë-Chloë Ångström"}"#, headers: manager)
            #expect(accents.status == 200)

            let duplicate = try await client.send(
                .POST, sim, path, json: #"{"naam":"Maximiliaanjans"}"#, headers: manager)
            #expect(duplicate.status == 200)
            let names = duplicate.kkDienst["aanmeldingen"] as? [String] ?? []
            #expect(names.filter { $0 == "Maximiliaanjans" }.count == 2)

            for body in [#"{"naam":"   "}"#, #"{}"#, #"{"naam":42}"#, #"{"naam":null}"#] {
                let r = try await client.send(.POST, sim, path, json: body, headers: manager)
                #expect(r.status == 422)
                #expect(r.object["error"] as? String == "invalid_name")
            }
            let noBody = try await client.send(.POST, sim, path, headers: manager)
            #expect(noBody.object["error"] as? String == "invalid_name")

            let malformed = try await client.send(.POST, sim, path, json: #"{"naam":"#, headers: manager)
            #expect(malformed.status == 400)
            #expect(malformed.body == #"{"errors":{"detail":"Bad Request"}}"#)

            let member = try await client.send(
                .POST, sim, path, json: #"{"naam":"Jan"}"#, headers: kkAuth(KK.demoMemberToken))
            #expect(member.status == 403)
            #expect(member.object["error"] as? String == "team_access_denied")
            #expect(member.object["message"] as? String != nil)
        }
    }

    @Test func volunteerAccessRules() async throws {
        try await withKantineKoning(kkOptions(openDienstenInList: true)) { sim, client in
            let manager = kkAuth(KK.demoManagerToken)
            // A dienst of a team the manager does not manage (seen through the member's JO13-1).
            let other = try await Self.futureDienst(client, sim, team: "JO13-1", token: KK.demoMemberToken)
            let r1 = try await client.send(
                .POST, sim, Self.volunteerPath(other["id"] as? String ?? ""), json: #"{"naam":"Jan"}"#, headers: manager
            )
            #expect(r1.status == 403 && r1.object["error"] as? String == "team_access_denied")

            // An open dienst.
            let list = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
            let open = try kkPick(list.kkDiensten) { $0["team"] is NSNull }
            let r2 = try await client.send(
                .POST, sim, Self.volunteerPath(open["id"] as? String ?? ""), json: #"{"naam":"Jan"}"#, headers: manager)
            #expect(r2.status == 403)

            // A past dienst of the manager's own team, add and remove.
            let past = try kkPick(list.kkDiensten) { kkTeamCode($0) == "JO11-3" && !kkIsFuture($0) }
            let pastID = past["id"] as? String ?? ""
            let r3 = try await client.send(
                .POST, sim, Self.volunteerPath(pastID), json: #"{"naam":"Jan"}"#, headers: manager)
            // "Future diensten only" is the app's rule, not a refusal the contract lists.
            #expect(r3.status == 200)
            let r4 = try await client.send(
                .DELETE, sim, Self.volunteerPath(pastID) + "&naam=Jan", headers: manager)
            #expect(r4.status == 200)

            // Unknown dienst, other tenant's dienst.
            let r5 = try await client.send(
                .POST, sim, Self.volunteerPath("nope"), json: #"{"naam":"Jan"}"#, headers: manager)
            #expect(r5.status == 404 && r5.object["error"] as? String == "dienst_not_found")
            let b = try await kkGet(client, sim, kkDienstenPath + "?tenant=agovv", token: KK.demoClubBMemberToken)
            let bID = try #require(kkIDs(b.kkDiensten).first)
            let r6 = try await client.send(
                .POST, sim, kkDienstenPath + "/\(bID)/volunteer", json: #"{"naam":"Jan"}"#, headers: manager)
            #expect(r6.status == 404)
            let r7 = try await client.send(
                .POST, sim, kkDienstenPath + "/\(bID)/volunteer?tenant=agovv", json: #"{"naam":"Jan"}"#,
                headers: manager)
            #expect(r7.status == 403 && r7.object["error"] as? String == "team_access_denied")

            // Token errors come first.
            let r8 = try await client.send(
                .POST, sim, Self.volunteerPath(pastID), json: #"{"naam":"Jan"}"#, headers: kkAuth(KK.revokedToken))
            #expect(r8.status == 401 && r8.object["error"] as? String == "token_revoked")
            let r9 = try await client.send(.POST, sim, Self.volunteerPath(pastID), json: #"{"naam":"Jan"}"#)
            #expect(r9.status == 401)
        }
    }

    @Test func injectedWriteFailures() async throws {
        try await withKantineKoning { sim, client in
            let dienst = try await Self.futureDienst(client, sim, team: "JO11-3")
            let id = try #require(dienst["id"] as? String)
            let before = dienst["aanmeldingen"] as? [String] ?? []
            let manager = kkAuth(KK.demoManagerToken)
            let cleared = try await client.send(sim, "/_sim/writes/fail")
            #expect(cleared.object["status"] is NSNull)

            // Before the write: nothing changes.
            let set = try await client.send(.POST, sim, "/_sim/writes/fail", json: #"{"status":500}"#)
            #expect(set.object["status"] as? Int == 500 && set.object["count"] as? Int == 1)
            let failed = try await client.send(
                .POST, sim, Self.volunteerPath(id), json: #"{"naam":"Wim"}"#, headers: manager)
            #expect(failed.status == 500)
            #expect(failed.body == #"{"errors":{"detail":"Internal Server Error"}}"#)
            // Reads are not affected, and the fault was used up.
            let afterFailed = try await kkGet(
                client, sim, kkDienstenPath + "/\(id)?tenant=vvwilhelmus", token: KK.demoManagerToken)
            #expect(afterFailed.kkDienst["aanmeldingen"] as? [String] == before)
            #expect(try await client.send(sim, "/_sim/writes/fail").object["status"] is NSNull)

            // After the write: stored, but the answer is an error.
            _ = try await client.send(
                .POST, sim, "/_sim/writes/fail", json: #"{"status":503,"count":2,"after_write":true}"#)
            let lost = try await client.send(
                .POST, sim, Self.volunteerPath(id), json: #"{"naam":"Wim"}"#, headers: manager)
            #expect(lost.status == 503)
            let stored = try await kkGet(
                client, sim, kkDienstenPath + "/\(id)?tenant=vvwilhelmus", token: KK.demoManagerToken)
            #expect(stored.kkDienst["aanmeldingen"] as? [String] == before + ["Wim"])
            #expect(try await client.send(sim, "/_sim/writes/fail").object["count"] as? Int == 1)
            // A refused write still uses up the fault and answers its own refusal.
            let absent = try await client.send(
                .DELETE, sim, Self.volunteerPath(id) + "&naam=Niemand", headers: manager)
            #expect(absent.status == 404)
            #expect(absent.object["error"] as? String == "volunteer_not_found")
            #expect(
                try await client.send(.DELETE, sim, Self.volunteerPath(id) + "&naam=Wim", headers: manager).status
                    == 200)

            // Clearing, bad input, reset.
            _ = try await client.send(.POST, sim, "/_sim/writes/fail", json: #"{"status":500,"count":5}"#)
            #expect(
                try await client.send(.POST, sim, "/_sim/writes/fail", json: #"{"status":null}"#).object["status"]
                    is NSNull)
            for body in [
                #"{"status":200}"#, #"{"status":500,"count":0}"#, #"{"status":500,"after_write":"yes"}"#, "[]",
            ] {
                #expect(try await client.send(.POST, sim, "/_sim/writes/fail", json: body).status == 400)
            }
            _ = try await client.send(.POST, sim, "/_sim/writes/fail", json: #"{"status":500}"#)
            _ = try await client.send(.POST, sim, "/_sim/reset")
            #expect(try await client.send(sim, "/_sim/writes/fail").object["status"] is NSNull)
        }
    }

    // MARK: Leaderboard

    @Test func leaderboard() async throws {
        try await withKantineKoning { sim, client in
            let base = "/api/mobile/v1/leaderboard?tenant=vvwilhelmus"
            let anonymous = try await kkGet(client, sim, base + "&period=season")
            #expect(anonymous.status == 200)
            #expect(
                anonymous.body.hasPrefix(
                    #"{"club":{"naam":"VV Wilhelmus"},"period":"season","teams":[{"highlighted":false,"points":"#))
            #expect(
                anonymous.body.hasSuffix(
                    #""tenant":{"club_name":"VV Wilhelmus","leaderboard_opt_out":false,"slug":"vvwilhelmus"}}"#))
            let teams = anonymous.object["teams"] as? [[String: Any]] ?? []
            #expect(teams.count == 6)
            #expect(teams.compactMap { $0["rank"] as? Int } == Array(1...6))
            let points = teams.compactMap { $0["points"] as? Int }
            #expect(points == points.sorted(by: >))
            #expect(
                teams.allSatisfy {
                    $0["total_hours"] is Double && $0["position_change"] is Int && $0["recent_change"] is Int
                })
            #expect(anonymous.body.contains(#""total_hours":"#))

            let jo113 = try await kkGet(client, sim, base + "&period=week&team_id=JO11-3", token: KK.demoManagerToken)
            #expect(jo113.status == 200)
            let week = jo113.object["teams"] as? [[String: Any]] ?? []
            #expect(week.filter { $0["highlighted"] as? Bool == true }.count == 1)
            let highlighted = try kkPick(week) { $0["highlighted"] as? Bool == true }
            #expect((highlighted["team"] as? [String: Any])?["code"] as? String == "JO11-3")
            #expect(jo113.object["period"] as? String == "week")
            let weekPoints = week.reduce(0) { $0 + ($1["points"] as? Int ?? 0) }
            let seasonPoints = points.reduce(0, +)
            #expect(weekPoints > 0 && weekPoints < seasonPoints)

            let month = try await kkGet(client, sim, base + "&period=month")
            #expect(month.status == 200)

            let bad = try await kkGet(client, sim, base + "&period=year")
            #expect(bad.status == 400 && bad.object["error"] as? String == "invalid_period")
            let unknown = try await kkGet(client, sim, "/api/mobile/v1/leaderboard?tenant=nope&period=season")
            #expect(unknown.status == 404 && unknown.object["error"] as? String == "tenant_not_found")
            let revoked = try await kkGet(client, sim, base + "&period=season", token: KK.revokedToken)
            #expect(revoked.status == 401)
            let invalid = try await kkGet(client, sim, base + "&period=season", token: "bogus")
            #expect(invalid.status == 401 && invalid.body == #"{"error":"invalid_token"}"#)

            let clubB = try await kkGet(
                client, sim, "/api/mobile/v1/leaderboard?tenant=agovv&period=season", token: KK.demoClubBMemberToken)
            #expect((clubB.object["tenant"] as? [String: Any])?["leaderboard_opt_out"] as? Bool == true)
            // No tenant parameter: the token's tenant.
            let implicit = try await kkGet(
                client, sim, "/api/mobile/v1/leaderboard?period=season", token: KK.demoClubBMemberToken)
            #expect((implicit.object["tenant"] as? [String: Any])?["slug"] as? String == "agovv")
        }
    }

    // MARK: Other endpoints

    @Test func tenantsStatusAndSearch() async throws {
        try await withKantineKoning { sim, client in
            let tenants = try await kkGet(client, sim, "/api/mobile/v1/tenants", token: KK.demoManagerToken)
            #expect(tenants.status == 200)
            let t = try #require((tenants.object["tenants"] as? [[String: Any]])?.first)
            #expect(t["slug"] as? String == "vvwilhelmus" && t["season_ended"] as? Bool == false)
            #expect((t["teams"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["JO11-3", "JO11-5"])
            #expect((t["teams"] as? [[String: Any]])?.allSatisfy { $0["role"] as? String == "manager" } == true)

            let status = try await kkGet(client, sim, "/api/mobile/v1/enrollments/status", token: KK.demoMemberToken)
            #expect(status.object["role"] as? String == "member")
            #expect(status.object["tenant_slug"] as? String == "vvwilhelmus")
            #expect(status.object["team_codes"] as? [String] == ["JO13-1", "JO11-5"])
            #expect(
                try await kkGet(client, sim, "/api/mobile/v1/enrollments/status", token: KK.seasonEndedToken).status
                    == 401)

            let search = try await kkGet(client, sim, "/api/mobile/v1/teams/search?tenant=vvwilhelmus&q=jo11")
            #expect(
                (search.object["teams"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == [
                    "JO11-3", "JO11-5",
                ])
            let heren = try await kkGet(client, sim, "/api/mobile/v1/teams/search?tenant=vvwilhelmus&q=heren")
            #expect((heren.object["teams"] as? [[String: Any]])?.first?["naam"] as? String == "Heren 1")
            let tenantSearch = try await kkGet(client, sim, "/api/mobile/v1/tenants/search?q=emma")
            let emma = try #require((tenantSearch.object["tenants"] as? [[String: Any]])?.first)
            #expect(emma["enrollment_open"] as? Bool == false)
        }
    }

    @Test func phoenixRoutingAndFaults() async throws {
        try await withKantineKoning { sim, client in
            let unknown = try await client.send(sim, "/api/mobile/v1/nope")
            #expect(unknown.status == 404)
            #expect(unknown.body == #"{"errors":{"detail":"Not Found"}}"#)
            let wrongMethod = try await client.send(
                .PUT, sim, kkDienstenPath, json: "{}", headers: kkAuth(KK.demoManagerToken))
            #expect(wrongMethod.status == 404)
            let notSimulated = try await client.send(.POST, sim, "/api/mobile/v1/enrollments/sync", json: "{}")
            #expect(notSimulated.status == 404)
            // Enrollment is simulated: an empty registration is refused with its code.
            let emptyRegistration = try await client.send(
                .POST, sim, "/api/mobile/v1/enrollments/register", json: "{}")
            #expect(emptyRegistration.status == 422)
            #expect(emptyRegistration.body.contains("invalid_or_expired_token"))
            let trailing = try await kkGet(
                client, sim, kkDienstenPath + "/?tenant=vvwilhelmus", token: KK.demoManagerToken)
            #expect(trailing.status == 200)

            sim.control.resetStats()
            _ = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
            _ = try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoMemberToken)
            #expect(sim.control.calls("GET /api/mobile/v1/diensten") == 2)

            let set = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":500}"#)
            #expect(set.status == 200)
            let failed = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
            #expect(failed.status == 500)
            #expect(failed.body == #"{"errors":{"detail":"Internal Server Error"}}"#)
            _ = try await client.send(.DELETE, sim, "/_sim/faults")
            #expect(try await kkGet(client, sim, kkDienstenPath, token: KK.demoManagerToken).status == 200)

            let routes = try await client.send(sim, "/_sim")
            let listed = routes.object["routes"] as? [String] ?? []
            #expect(
                listed.contains("POST /_sim/tokens/revoke") && listed.contains("POST /_sim/tenants/{slug}/season-end"))
            #expect(listed.contains("POST /_sim/reset"))
        }
    }

    @Test func clockControl() async throws {
        try await withKantineKoning { sim, client in
            let clock = try await client.send(sim, "/_sim/clock")
            #expect(clock.object["now"] as? String == "2026-11-23T11:00:00.000000Z")
            #expect(clock.object["fixed"] as? Bool == true)
            // Move past today's 18:30 dienst: it leaves the future-only list.
            let moved = try await client.send(.POST, sim, "/_sim/clock", json: #"{"now":"2026-11-23T22:00:00+01:00"}"#)
            #expect(moved.object["now"] as? String == "2026-11-23T21:00:00.000000Z")
            let list = try await kkGet(
                client, sim, kkDienstenPath + "?tenant=vvwilhelmus&past_days=0", token: KK.demoManagerToken)
            #expect(!list.kkDiensten.contains { $0["start_tijd"] as? String == "2026-11-23T17:30:00Z" })
            let real = try await client.send(.POST, sim, "/_sim/clock", json: #"{"now":null}"#)
            #expect(real.object["fixed"] as? Bool == false)
            #expect((real.object["now"] as? String)?.hasPrefix("2026-11-2") == true)
            let bad = try await client.send(.POST, sim, "/_sim/clock", json: #"{"now":"tomorrow"}"#)
            #expect(bad.status == 400)
        }
    }

    // MARK: Seed and options

    @Test func deterministicAcrossRestarts() async throws {
        var bodies: [String] = []
        for _ in 0..<2 {
            try await withKantineKoning { sim, client in
                bodies.append(
                    try await kkGet(client, sim, kkDienstenPath + "?tenant=vvwilhelmus", token: KK.demoManagerToken)
                        .body)
            }
        }
        #expect(bodies.count == 2 && bodies[0] == bodies[1])
    }

    @Test(arguments: ["2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"])
    func seedGuaranteesForEveryWeekday(seedDay: String) throws {
        let options = KK.Options(seedDay: seedDay, timeZone: testTimeZone)
        let seed = KantineKoningSeed.build(options: options)
        let (y, m, d) = try #require(Civil.parseDay(seedDay))
        // Local midnight (UTC+1).
        let midnight = Int64(Civil.days(year: y, month: m, day: d)) * Civil.microsPerDay - 3600 * Civil.microsPerSecond
        func day(_ dienst: KantineKoningDienst) -> Int64 {
            let delta = dienst.start - midnight
            return delta >= 0 ? delta / Civil.microsPerDay : -((-delta + Civil.microsPerDay - 1) / Civil.microsPerDay)
        }
        let a = seed.diensten.filter { $0.tenantSlug == "vvwilhelmus" }
        let b = seed.diensten.filter { $0.tenantSlug == "agovv" }
        #expect(a.contains { day($0) == 0 && $0.team?.code == "JO11-3" })
        #expect(b.contains { (1...3).contains(day($0)) && $0.team?.code == "JO10-5" })
        #expect(a.allSatisfy { (-14...21).contains(day($0)) })
        #expect(a.filter { $0.team?.code == "JO11-5" }.count >= 2)
        #expect(a.filter { $0.team?.code == "JO11-5" && day($0) > 0 }.count >= 1)
        #expect(a.contains { $0.team == nil } && b.contains { $0.team == nil })
        #expect(a.contains { $0.typeNaam == "Bar" } && a.contains { $0.typeNaam == "Keuken" })
        #expect(Set(seed.diensten.map(\.id)).count == seed.diensten.count)
        #expect(seed.diensten.allSatisfy { $0.aanmeldingen.allSatisfy { $0.count <= 15 } })
        // One future updated_at with a zero fraction, still written with six digits.
        #expect(seed.diensten.contains { KantineKoningTime.micros($0.updatedAt).hasSuffix(".000000Z") })
    }

    @Test func optionsValidation() async throws {
        await #expect(throws: SimulatorError.self) {
            _ = try await KK(options: KK.Options(seedDay: "2026-02-30")).start()
        }
        let orphan = KK.Enrollment(tenant: "nope", role: .member, token: "t", label: "x", teamCodes: [])
        await #expect(throws: SimulatorError.self) {
            _ = try await KK(options: KK.Options(seedDay: testSeedDay, enrollments: [orphan])).start()
        }
        let twice = KK.demoEnrollments[0]
        await #expect(throws: SimulatorError.self) {
            _ = try await KK(options: KK.Options(seedDay: testSeedDay, enrollments: [twice, twice])).start()
        }
        #expect(KK.demoEnrollments.count == 3)
        #expect(KK.demoEnrollments.map(\.role) == [.manager, .member, .member])
        #expect(Set(KK.defaultEnrollments.map(\.token)).count == 5)
    }

    @Test func customTenantsAndTeamIds() async throws {
        let tenant = KK.Tenant(
            slug: "hfc", name: "HFC", teams: [KK.Team(code: "JO8-1", id: "team-8-1"), KK.Team(code: "JO8-2")])
        // Enrollment by team id (what the app's self-made member tokens carry).
        let enrollment = KK.Enrollment(
            tenant: "hfc", role: .manager, token: "hfc-token", label: "HFC", teamCodes: ["team-8-1"])
        let options = KK.Options(
            seedDay: testSeedDay, timeZone: testTimeZone, tenants: [tenant], enrollments: [enrollment], now: kkNow)
        try await withKantineKoning(options) { sim, client in
            let r = try await kkGet(client, sim, kkDienstenPath + "?tenant=hfc", token: "hfc-token")
            #expect(r.status == 200)
            #expect(!r.kkDiensten.isEmpty)
            #expect(r.kkDiensten.allSatisfy { ($0["team"] as? [String: Any])?["id"] as? String == "team-8-1" })
            #expect(try await kkGet(client, sim, kkDienstenPath, token: KK.demoManagerToken).status == 401)
        }
    }
}
