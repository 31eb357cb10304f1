import AsyncHTTPClient
import Backends
import Foundation
import Logging
import Model
import NIOHTTP1
import Simulators
import Testing

/// `daygate connect kantinekoning` against the simulator: the member flow without e-mail, the
/// e-mail flow, the refusals as sentences, `--list`/`--remove` telling the club, and the
/// gateway's fetches using what was kept.
@Suite("Connect: Kantine Koning against the simulator")
struct KantineKoningConnectTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!

    struct Fixture {
        let sim: RunningSimulator
        let vault = MemoryCredentialVault()

        var profile: ProfileConfig {
            ProfileConfig([KantineKoningSettings(endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), enrollments: [])])
        }

        func context(_ answers: [String: String]) -> (ConnectContext, ScriptedPrompt) {
            let prompt = ScriptedPrompt(answers)
            return (
                ConnectContext(
                    profileName: "default", profile: profile, vault: vault, http: UpstreamHTTP(client: .shared),
                    prompt: prompt),
                prompt
            )
        }

        func connect(_ answers: [String: String]) async throws -> String {
            try await KantineKoningConnect().connect(context(answers).0)
        }

        /// The refusal of a connect, as the person reads it.
        func refusal(_ answers: [String: String]) async -> String? {
            do {
                _ = try await connect(answers)
                return nil
            } catch let error as ConnectError {
                return error.message
            } catch {
                return "\(error)"
            }
        }

        var kept: [KantineKoningConnectedEnrollment] {
            get async { await KantineKoningConnectedEnrollments(vault: vault, profile: "default").all() }
        }

        func operationContext() -> OperationContext {
            OperationContext(
                profileName: "default", profile: profile, clock: RequestClock(now: Date(), timeZone: zone),
                http: UpstreamHTTP(client: .shared), sessions: SessionRegistry(vault: vault),
                logger: Logger(label: "test"))
        }

        /// The simulator's state of `token` (`active`, `device_not_found`, …) and its team codes.
        func state(of token: String) async throws -> (String, [String])? {
            let value = try await SimulatorBackedTest.call(sim, .GET, "/_sim/enrollments")
            for row in value["enrollments"]?.arrayValue ?? [] where row["token"]?.stringValue == token {
                return (
                    row["status"]?.stringValue ?? "", (row["team_codes"]?.arrayValue ?? []).compactMap(\.stringValue)
                )
            }
            return nil
        }
    }

    static func run(_ body: (Fixture) async throws -> Void) async throws {
        let sim = try await KantineKoningSimulator(options: .init(timeZone: zone)).start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: zone) { sim, _ in
            try await body(Fixture(sim: sim))
        }
    }

    @Test("member without e-mail: the app's own token enrolls; the gateway then fetches with it")
    func memberFlow() async throws {
        try await Self.run { f in
            let said = try await f.connect(["club": "wilhelmus", "team": "JO13-1, mo15-2", "flow": "member"])
            #expect(said.contains("VV Wilhelmus"))
            let kept = await f.kept
            let enrollment = try #require(kept.first)
            #expect(kept.count == 1)
            #expect(enrollment.tenant == KantineKoningSimulator.demoTenantA)
            #expect(enrollment.role == "member")
            #expect(enrollment.teams.map(\.display) == ["JO13-1", "MO15-2"])
            #expect(try await f.state(of: enrollment.token)?.0 == "active")
            // Not in the config, yet the gateway's diensten come through it.
            let before = f.sim.control.calls("GET /api/mobile/v1/diensten")
            _ = try await KantineKoningDienstenOperation().fetch([:], context: f.operationContext())
            #expect(f.sim.control.calls("GET /api/mobile/v1/diensten") == before + 1)
            let checks = await KantineKoningConnect().check(f.operationContext())
            #expect(checks.map(\.ok) == [true])
            #expect(checks.first?.scope == enrollment.label)
        }
    }

    @Test("a self-made member token works once")
    func memberTokenOnce() async throws {
        try await Self.run { f in
            let team = try #require(
                try await SimulatorBackedTest.call(
                    f.sim, .GET, "/api/mobile/v1/teams/search?tenant=vvwilhelmus&q=JO13")[
                        "teams"]?.arrayValue?.first)
            let code = try #require(team["code"]?.stringValue)
            let id = try #require(team["id"]?.stringValue)
            // The app puts team codes in its token; an id of a team that has a code is not one.
            let byID = KantineKoningEnrollmentToken(
                tenantSlug: "vvwilhelmus", tenantName: "VV Wilhelmus", teamCodes: [id], now: Date()
            ).encoded
            let refused = try await SimulatorBackedTest.call(
                f.sim, .POST, "/api/mobile/v1/enrollments/register",
                json: #"{"enrollment_token":"\#(byID)","hardware_identifier":"H","platform":"ios"}"#)
            #expect(refused["error"] == .string("invalid_team_codes"))
            let token = KantineKoningEnrollmentToken(
                tenantSlug: "vvwilhelmus", tenantName: "VV Wilhelmus", teamCodes: [code], now: Date()
            ).encoded
            let body = #"{"enrollment_token":"\#(token)","hardware_identifier":"H","platform":"ios"}"#
            let first = try await SimulatorBackedTest.call(
                f.sim, .POST, "/api/mobile/v1/enrollments/register", json: body)
            #expect(first["role"] == .string("member"))
            let second = try await SimulatorBackedTest.call(
                f.sim, .POST, "/api/mobile/v1/enrollments/register", json: body)
            #expect(second["error"] == .string("invalid_or_expired_token"))
        }
    }

    @Test("e-mail flow: the link goes to the team manager; pasting it enrolls as manager, once")
    func emailFlow() async throws {
        try await Self.run { f in
            let answers = [
                "club": "vvwilhelmus", "team": "JO11-3", "flow": "email",
                "email": KantineKoningSimulator.demoManagerEmail,
            ]
            // A script's first run: the link is sent, then the flow stops for --link.
            let (context, prompt) = f.context(answers)
            await #expect(throws: ConnectError.self) { _ = try await KantineKoningConnect().connect(context) }
            #expect(prompt.lines.contains { $0.contains("sent a link to \(KantineKoningSimulator.demoManagerEmail)") })
            let mail = try await SimulatorBackedTest.call(f.sim, .GET, "/_sim/mail")["mail"]?.arrayValue ?? []
            #expect(mail.count == 1)
            let link = try #require(mail.first?["link"]?.stringValue)
            // The second run with the link: no new e-mail, an enrollment as manager.
            var withLink = answers
            withLink["link"] = link
            _ = try await f.connect(withLink)
            #expect(try await SimulatorBackedTest.call(f.sim, .GET, "/_sim/mail")["mail"]?.arrayValue?.count == 1)
            let kept = await f.kept
            #expect(kept.map(\.role) == ["manager"])
            #expect(kept.first?.email == KantineKoningSimulator.demoManagerEmail)
            // The link worked once.
            #expect(
                await f.refusal(withLink)
                    == KantineKoningErrorSentence.sentence(code: "invalid_or_expired_token", status: 422))
        }
    }

    @Test("the club's refusals reach the person as sentences")
    func refusals() async throws {
        try await Self.run { f in
            let base = ["club": "vvwilhelmus", "team": "JO11-3", "flow": "email"]
            var stranger = base
            stranger["email"] = "stranger@example.com"
            #expect(
                await f.refusal(stranger)
                    == KantineKoningErrorSentence.sentence(code: "team_manager_not_found", status: 404))
            var invalid = base
            invalid["email"] = "not-an-address"
            #expect(await f.refusal(invalid) == KantineKoningErrorSentence.sentence(code: "invalid_email", status: 422))
            let closed = await f.refusal(["club": KantineKoningSimulator.demoTenantSeasonEnded, "team": "JO9-1"])
            #expect(closed?.hasPrefix("The club does not accept new enrollments") == true)
            #expect(await f.refusal(["club": "vvwilhelmus", "team": "XX-99"])?.contains("no team matching") == true)
            #expect(
                await f.refusal(["club": "no-such-club-anywhere", "team": "JO11-3"])?.contains("knows no club") == true)
            #expect(await f.kept.isEmpty)
        }
    }

    @Test("--list and --remove: the club is told (remove-teams, then leaving the club) before forgetting")
    func listAndRemove() async throws {
        try await Self.run { f in
            _ = try await f.connect(["club": "vvwilhelmus", "team": "JO13-1", "flow": "member"])
            _ = try await f.connect(["club": "vvwilhelmus", "team": "MO15-2", "flow": "member"])
            let (context, _) = f.context([:])
            let kept = await f.kept
            #expect(kept.count == 2)
            let listed = try await KantineKoningConnect().list(context)
            #expect(listed.count == 2)
            #expect(listed[0].hasPrefix(kept[0].id))
            // Another enrollment stays at the club: only this one's teams leave.
            _ = try await KantineKoningConnect().remove(kept[0].id, context: context)
            #expect(f.sim.control.calls("POST /api/mobile/v1/enrollments/remove-teams") == 1)
            #expect(try await f.state(of: kept[0].token)?.1 == [])
            #expect(await f.kept.map(\.id) == [kept[1].id])
            // The last one at the club: the device leaves the club.
            _ = try await KantineKoningConnect().remove(kept[1].id, context: context)
            #expect(f.sim.control.calls("DELETE /api/mobile/v1/enrollments/tenant") == 1)
            #expect(try await f.state(of: kept[1].token)?.0 == "device_not_found")
            #expect(await f.kept.isEmpty)
            #expect(try await KantineKoningConnect().list(context).isEmpty)
        }
    }
}
