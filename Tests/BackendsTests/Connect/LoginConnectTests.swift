import AsyncHTTPClient
import Backends
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Synchronization
import Testing

/// `daygate connect` for the backends with a password (Tickedify, FitIQ, PRSNL) against their
/// simulators: what is kept, what the gateway does with it, and what happens when it stops working.
@Suite("Connect: Tickedify, FitIQ and PRSNL against the simulators")
struct LoginConnectTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!

    /// The gateway's own HTTP client settings (no redirects: `/al/` answers a 302).
    static func withHTTP(_ body: (UpstreamHTTP) async throws -> Void) async throws {
        let http = UpstreamHTTP()
        do {
            try await body(http)
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }

    static func connectContext(
        _ profile: ProfileConfig, vault: any CredentialVault, http: UpstreamHTTP, _ answers: [String: String]
    )
        -> ConnectContext
    {
        ConnectContext(
            profileName: "default", profile: profile, vault: vault, http: http, prompt: ScriptedPrompt(answers))
    }

    static func operationContext(_ profile: ProfileConfig, vault: any CredentialVault, http: UpstreamHTTP)
        -> OperationContext
    {
        OperationContext(
            profileName: "default", profile: profile, clock: RequestClock(now: Date(), timeZone: zone), http: http,
            sessions: SessionRegistry(vault: vault), logger: Logger(label: "test"))
    }

    static func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as ConnectError {
            return error.message
        } catch let error as BackendError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    // MARK: - Tickedify

    static func tickedifyProfile(_ sim: RunningSimulator) -> ProfileConfig {
        ProfileConfig([
            TickedifySettings(endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), email: TickedifySimulator.demoEmail)
        ])
    }

    /// A session made outside daygate (the person's browser) and a fresh login link from it,
    /// which replaces any earlier link of the account.
    static func browserLink(_ sim: RunningSimulator, http: UpstreamHTTP) async throws -> String {
        let source = UpstreamSource(profile: "browser", backend: "tickedify")
        let cookie = try await TickedifyClient.passwordLogin(
            email: TickedifySimulator.demoEmail, password: Secret(TickedifySimulator.demoPassword),
            endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), http: http, source: source, now: Date()
        ).0
        return try await TickedifyPersistentLogin.generate(
            cookie: cookie.pair, baseURL: sim.apiBaseURL, http: http, timeout: 5, source: source)
    }

    /// A profile connected with the password (its login link kept in `vault`), after which the
    /// person made a new link in the browser and every session ended: Tickedify answers the
    /// kept link as it answers a link it cannot log in with right now.
    static func connectedLinkThatNoLongerWorks(_ sim: RunningSimulator, http: UpstreamHTTP) async throws -> (
        vault: MemoryCredentialVault, profile: ProfileConfig, scope: String, kept: String
    ) {
        let vault = MemoryCredentialVault()
        let profile = Self.tickedifyProfile(sim)
        let scope = TickedifyClient.scope(profile.tickedify!).description
        _ = try await TickedifyConnect().connect(
            Self.connectContext(profile, vault: vault, http: http, ["password": TickedifySimulator.demoPassword]))
        let kept = try #require(
            await TickedifyPersistentLogin.stored(vault: vault, profile: scope, email: TickedifySimulator.demoEmail))
        _ = try await Self.browserLink(sim, http: http)
        _ = try await SimulatorBackedTest.call(sim, .POST, "/_sim/sessions/expire")
        return (vault, profile, scope, kept)
    }

    @Test("Tickedify: the password once; the gateway renews an ended session through /al/, without the password")
    func tickedifyPasswordThenRenewal() async throws {
        let sim = try await TickedifySimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let vault = MemoryCredentialVault()
                let profile = Self.tickedifyProfile(sim)
                let said = try await TickedifyConnect().connect(
                    Self.connectContext(
                        profile, vault: vault, http: http, ["password": TickedifySimulator.demoPassword]))
                #expect(!said.contains(TickedifySimulator.demoPassword))
                let token = try #require(
                    await TickedifyPersistentLogin.stored(
                        vault: vault, profile: TickedifyClient.scope(profile.tickedify!).description,
                        email: TickedifySimulator.demoEmail))
                #expect(sim.control.calls("POST /api/auth/login") == 1)
                // The gateway starts with the kept session: no login.
                let context = Self.operationContext(profile, vault: vault, http: http)
                _ = try await TickedifyCountsOperation().fetch([:], context: context)
                #expect(sim.control.calls("POST /api/auth/login") == 1)
                #expect(sim.control.calls("GET /al/\(token)") == 0)
                // The server forgets the session (as after 24 h): renewed through the link, twice.
                for round in 1...2 {
                    _ = try await SimulatorBackedTest.call(sim, .POST, "/_sim/sessions/expire")
                    _ = try await TickedifyCountsOperation().fetch([:], context: context)
                    #expect(sim.control.calls("GET /al/\(token)") == round)
                }
                #expect(sim.control.calls("POST /api/auth/login") == 1)
            }
        }
    }

    @Test("Tickedify: when the 24-hour cookie nears its end the gateway renews it through /al/, not the password")
    func tickedifyCookieEnd() async throws {
        let sim = try await TickedifySimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let vault = MemoryCredentialVault()
                let profile = Self.tickedifyProfile(sim)
                let start = Date()
                _ = try await TickedifyConnect().connect(
                    ConnectContext(
                        profileName: "default", profile: profile, vault: vault, http: http,
                        prompt: ScriptedPrompt(["password": TickedifySimulator.demoPassword]), now: { start }))
                let token = try #require(
                    await TickedifyPersistentLogin.stored(
                        vault: vault, profile: TickedifyClient.scope(profile.tickedify!).description,
                        email: TickedifySimulator.demoEmail))
                // A gateway whose clock reads 23.5 hours after the connect.
                let sessions = SessionRegistry(vault: vault, now: { start.addingTimeInterval(23.5 * 3600) })
                let context = OperationContext(
                    profileName: "default", profile: profile, clock: RequestClock(now: Date(), timeZone: Self.zone),
                    http: http, sessions: sessions, logger: Logger(label: "test"))
                _ = try await TickedifyCountsOperation().fetch([:], context: context)
                #expect(sim.control.calls("GET /al/\(token)") == 1)
                #expect(sim.control.calls("POST /api/auth/login") == 1)
            }
        }
    }

    /// Tickedify answers `/al/` with the same 302 and no cookie for a link it does not know and
    /// when it cannot save a session (recorded: `Tests/Fixtures/recordings/tickedify`, 097 and
    /// 121). One such answer must not cost the household its link: it is kept and tried again
    /// after a back-off, and only after three days (and five tries) is the person asked to
    /// connect again — the link still kept until `daygate connect` replaces it.
    @Test(
        "Tickedify: a link answered without a session is kept, tried again later, and only after three days is the person asked to connect again"
    )
    func tickedifyLinkStopsWorking() async throws {
        let sim = try await TickedifySimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let (vault, profile, scope, kept) = try await Self.connectedLinkThatNoLongerWorks(sim, http: http)
                let start = Date()
                let clock = Mutex(start)
                let sessions = SessionRegistry(vault: vault, now: { clock.withLock { $0 } })
                func fetch() async -> BackendError? {
                    let context = OperationContext(
                        profileName: "default", profile: profile, clock: RequestClock(now: Date(), timeZone: Self.zone),
                        http: http, sessions: sessions, logger: Logger(label: "test"))
                    do {
                        _ = try await TickedifyCountsOperation().fetch([:], context: context)
                        return nil
                    } catch {
                        return error as? BackendError
                    }
                }
                func linkCalls() -> Int { sim.control.calls("GET /al/\(kept)") }

                let first = await fetch()
                #expect(first?.kind == .reauthSuspected)
                #expect(first?.message.contains("the link is kept") == true)
                #expect(linkCalls() == 1)
                #expect(
                    await TickedifyPersistentLogin.stored(
                        vault: vault, profile: scope, email: TickedifySimulator.demoEmail)
                        == kept)
                let health = await TickedifyPersistentLogin.health(vault: vault, profile: scope)
                #expect(health.state == .reauthSuspected && health.failures == 1 && health.firstFailure != nil)

                // Within the back-off nothing is sent; after it the link is tried again.
                clock.withLock { $0 = start.addingTimeInterval(30) }
                #expect(await fetch()?.kind == .reauthSuspected)
                #expect(linkCalls() == 1)
                var now = start
                for round in 2...5 {
                    now = now.addingTimeInterval(TickedifyLinkHealth.maximumBackoff + 1)
                    clock.withLock { [now] in $0 = now }
                    #expect(await fetch()?.kind == .reauthSuspected)
                    #expect(linkCalls() == round)
                }
                // Three days of failures: the person is asked to connect again; the link stays.
                clock.withLock { $0 = start.addingTimeInterval(TickedifyLinkHealth.giveUpAfter + 1) }
                let last = await fetch()
                #expect(last?.kind == .reauthRequired)
                #expect(last?.message.contains("run `daygate connect tickedify`") == true)
                #expect(linkCalls() == 6)
                #expect(
                    await TickedifyPersistentLogin.stored(
                        vault: vault, profile: scope, email: TickedifySimulator.demoEmail)
                        == kept)
                // No password was tried: only the two deliberate logins happened.
                #expect(sim.control.calls("POST /api/auth/login") == 2)
            }
        }
    }

    /// With a password configured the failing link does not stop the day: the password logs
    /// in meanwhile, and the link is tried again once its back-off has passed.
    @Test("Tickedify: while the kept link fails, the configured password is used and the link kept")
    func tickedifyLinkFailsWithAPassword() async throws {
        let sim = try await TickedifySimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let (vault, _, scope, kept) = try await Self.connectedLinkThatNoLongerWorks(sim, http: http)
                let withPassword = ProfileConfig([
                    TickedifySettings(
                        endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), email: TickedifySimulator.demoEmail,
                        password: Secret(TickedifySimulator.demoPassword))
                ])
                _ = try await TickedifyCountsOperation().fetch(
                    [:], context: Self.operationContext(withPassword, vault: vault, http: http))
                #expect(sim.control.calls("GET /al/\(kept)") == 1)
                #expect(sim.control.calls("POST /api/auth/login") == 3)
                #expect(
                    await TickedifyPersistentLogin.stored(
                        vault: vault, profile: scope, email: TickedifySimulator.demoEmail)
                        == kept)
                #expect(await TickedifyPersistentLogin.health(vault: vault, profile: scope).state == .reauthSuspected)
            }
        }
    }

    /// A password connect makes a new login link, which replaces the one the account had: the
    /// person is told before the password is asked (and offered to paste the link instead), and
    /// the answer says it happened; a pasted link makes no new one and says nothing of the kind.
    @Test("Tickedify: a password connect says first that it replaces the account's login link")
    func tickedifyPasswordConnectWarnsOfTheNewLink() async throws {
        let sim = try await TickedifySimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let vault = MemoryCredentialVault()
                let profile = Self.tickedifyProfile(sim)
                let prompt = ScriptedPrompt(["password": TickedifySimulator.demoPassword])
                let message = try await TickedifyConnect().connect(
                    ConnectContext(profileName: "default", profile: profile, vault: vault, http: http, prompt: prompt))
                #expect(prompt.lines.contains { $0.contains("stops working") && $0.contains("paste that link") })
                #expect(message.contains("no longer works"))

                let token = try await Self.browserLink(sim, http: http)
                let linkPrompt = ScriptedPrompt(["link": "\(sim.apiBaseURL)/al/\(token)"])
                let linked = try await TickedifyConnect().connect(
                    ConnectContext(
                        profileName: "default", profile: profile, vault: vault, http: http, prompt: linkPrompt))
                #expect(!linked.contains("no longer works"))
            }
        }
    }

    @Test("Tickedify: a login link the person has is kept as is; a wrong password keeps nothing")
    func tickedifyLinkAndWrongPassword() async throws {
        let sim = try await TickedifySimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let vault = MemoryCredentialVault()
                let profile = Self.tickedifyProfile(sim)
                let wrong = await Self.refusal {
                    _ = try await TickedifyConnect().connect(
                        Self.connectContext(profile, vault: vault, http: http, ["password": "not-the-password"]))
                }
                #expect(wrong?.contains("did not accept the password") == true)
                #expect(
                    await vault.value(
                        profile: TickedifyClient.scope(profile.tickedify!).description, backend: "tickedify",
                        name: TickedifyPersistentLogin.tokenName) == nil)
                let token = try await Self.browserLink(sim, http: http)
                _ = try await TickedifyConnect().connect(
                    Self.connectContext(profile, vault: vault, http: http, ["link": "\(sim.apiBaseURL)/al/\(token)"]))
                #expect(
                    await TickedifyPersistentLogin.stored(
                        vault: vault, profile: TickedifyClient.scope(profile.tickedify!).description,
                        email: TickedifySimulator.demoEmail)
                        == token)
                // Connecting with a link makes no new one (that would replace the person's).
                #expect(sim.control.calls("GET /api/auth/generate-persistent-token") == 1)
            }
        }
    }

    // MARK: - FitIQ and PRSNL

    @Test("FitIQ: only the refresh token is kept; the gateway logs in with it; a wrong password keeps nothing")
    func fitiq() async throws {
        let sim = try await FitIQSimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let vault = MemoryCredentialVault()
                let profile = ProfileConfig([
                    FitIQSettings(
                        endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), apiKey: Secret(FitIQSimulator.demoAPIKey),
                        email: FitIQSimulator.demoEmail)
                ])
                let wrong = await Self.refusal {
                    _ = try await FitIQConnect().connect(
                        Self.connectContext(profile, vault: vault, http: http, ["password": "wrong-password-1"]))
                }
                #expect(wrong?.contains("did not accept") == true)
                #expect(
                    await vault.value(
                        profile: FitIQClient.scope(profile.fitiq!).description, backend: "fitiq", name: "refresh_token")
                        == nil)
                _ = try await FitIQConnect().connect(
                    Self.connectContext(profile, vault: vault, http: http, ["password": FitIQSimulator.demoPassword]))
                let refresh = try #require(
                    await vault.value(
                        profile: FitIQClient.scope(profile.fitiq!).description, backend: "fitiq", name: "refresh_token")
                )
                #expect(refresh != FitIQSimulator.demoPassword)
                // Forget the access token: the gateway must refresh with the kept refresh token.
                try await vault.setValue(
                    nil, profile: FitIQClient.scope(profile.fitiq!).description, backend: "fitiq", name: "access_token")
                let checks = await FitIQConnect().check(Self.operationContext(profile, vault: vault, http: http))
                #expect(checks.map(\.ok) == [true])
                let rotated = await vault.value(
                    profile: FitIQClient.scope(profile.fitiq!).description, backend: "fitiq", name: "refresh_token")
                #expect(rotated != nil && rotated != refresh)
            }
        }
    }

    @Test("PRSNL: only the refresh token is kept; check fails once it is gone")
    func prsnl() async throws {
        let sim = try await PRSNLSimulator().start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, _ in
            try await Self.withHTTP { http in
                let vault = MemoryCredentialVault()
                let profile = ProfileConfig([
                    PRSNLSettings(endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), email: PRSNLSimulator.demoEmail)
                ])
                _ = try await PRSNLConnect().connect(
                    Self.connectContext(profile, vault: vault, http: http, ["password": PRSNLSimulator.demoPassword]))
                #expect(
                    await vault.value(
                        profile: PRSNLClient.scope(profile.prsnl!).description, backend: "prsnl", name: "refresh_token")
                        != nil)
                #expect(
                    await PRSNLConnect().check(Self.operationContext(profile, vault: vault, http: http)).map(\.ok) == [
                        true
                    ])
                let context = Self.connectContext(profile, vault: vault, http: http, [:])
                #expect(try await PRSNLConnect().list(context).count == 1)
                _ = try await PRSNLConnect().remove("", context: context)
                let checks = await PRSNLConnect().check(Self.operationContext(profile, vault: vault, http: http))
                #expect(checks.map(\.ok) == [false])
                #expect(checks.first?.message.contains("daygate connect prsnl") == true)
            }
        }
    }
}
