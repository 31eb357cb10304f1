import AsyncHTTPClient
import Foundation
import Logging
import Model
import NIOHTTP1
import Simulators
import Synchronization
import Testing

@testable import Backends

/// Tickedify sessions belong to an account on a server, not to a profile: a changed e-mail
/// never uses the old account's cookie, the login budget (5 per 15 minutes per client
/// address at Tickedify) is one per server, and an account whose trial ended is a clear
/// section error without new logins.
@Suite("Tickedify accounts")
struct TickedifyAccountTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let login = "POST /api/auth/login"
    static let me = "GET /api/auth/me"

    final class TestClock: Sendable {
        private let value = Mutex(Date())
        func now() -> Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    }

    struct Fixture {
        let sim: RunningSimulator
        let vault = MemoryCredentialVault()
        let clock = TestClock()
        let sessions: SessionRegistry

        init(sim: RunningSimulator) {
            self.sim = sim
            self.sessions = SessionRegistry(vault: vault, now: { [clock] in clock.now() })
        }

        func settings(_ email: String, _ password: String) -> TickedifySettings {
            TickedifySettings(
                endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), email: email, password: Secret(password))
        }

        func context(_ profile: String, _ settings: TickedifySettings) -> OperationContext {
            OperationContext(
                profileName: profile, profile: ProfileConfig([settings]),
                clock: RequestClock(now: clock.now(), timeZone: TickedifyAccountTests.zone),
                http: UpstreamHTTP(client: .shared), sessions: sessions, logger: Logger(label: "test"))
        }

        func inbox(_ profile: String, _ settings: TickedifySettings) async throws -> JSONValue {
            let output = try await TickedifyListOperation().fetch(
                ["list": .string("inbox")], context: context(profile, settings))
            return try JSONDecoder().decode(JSONValue.self, from: output.body)
        }

        func calls(_ key: String) -> Int { sim.control.calls(key) }
    }

    static func withFixture(loginLimit: Int = 5, _ body: (Fixture) async throws -> Void) async throws {
        let sim = try await TickedifySimulator(
            options: .init(seedDay: "2026-11-23", timeZone: zone, loginLimit: loginLimit)
        ).start()
        do {
            try await body(Fixture(sim: sim))
        } catch {
            await sim.stop()
            throw error
        }
        await sim.stop()
    }

    static func error(_ body: () async throws -> Void) async -> BackendError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? BackendError
        }
    }

    @Test func aChangedEmailNeverUsesTheOldAccountsCookie() async throws {
        try await Self.withFixture { f in
            let anna = f.settings(TickedifySimulator.demoEmail, TickedifySimulator.demoPassword)
            let bram = f.settings(TickedifySimulator.upgradeEmail, TickedifySimulator.upgradePassword)
            let annas = try await f.inbox("default", anna)
            #expect(!(annas.arrayValue ?? []).isEmpty, "the demo account has an inbox")
            #expect(f.calls(Self.login) == 1)
            // The same profile, another e-mail: a login of its own, not Anna's cookie.
            let failure = await Self.error { _ = try await f.inbox("default", bram) }
            #expect(f.calls(Self.login) == 2)
            #expect(failure?.kind == .accessExpired, "Bram's own session says his beta period ended")
            // Back to Anna: her session is still hers, no new login.
            _ = try await f.inbox("default", anna)
            #expect(f.calls(Self.login) == 2)
            // Another profile with Anna's account shares her session.
            _ = try await f.inbox("other", anna)
            #expect(f.calls(Self.login) == 2)
            #expect(TickedifyClient.scope(anna) != TickedifyClient.scope(bram))
            #expect(!TickedifyClient.scope(anna).description.contains(TickedifySimulator.demoEmail))
        }
    }

    @Test func oneLoginBudgetPerServer() async throws {
        try await Self.withFixture { f in
            let anna = f.settings(TickedifySimulator.demoEmail, TickedifySimulator.demoPassword)
            // Four profiles with a mistyped e-mail each make one refused login: the server's
            // budget is used up…
            for index in 1...4 {
                let wrong = f.settings("kid\(index)@example.org", "nope")
                let failure = await Self.error { _ = try await f.inbox("kid\(index)", wrong) }
                #expect(failure?.kind == .reauthRequired)
            }
            #expect(f.calls(Self.login) == 4)
            let sent = f.calls(Self.login)
            // …so the household's own profile does not log in a fifth time: Tickedify would
            // lock the address for 15 minutes.
            let blocked = await Self.error { _ = try await f.inbox("default", anna) }
            #expect(blocked?.kind == .reauthBlocked)
            #expect(f.calls(Self.login) == sent)
            // After the window the budget is back.
            f.clock.advance(901)
            _ = try await f.inbox("default", anna)
            #expect(f.calls(Self.login) == sent + 1)
        }
    }

    @Test func anEndedTrialIsASectionErrorWithoutNewLogins() async throws {
        try await Self.withFixture { f in
            let bram = f.settings(TickedifySimulator.upgradeEmail, TickedifySimulator.upgradePassword)
            let first = await Self.error { _ = try await f.inbox("default", bram) }
            #expect(first?.kind == .accessExpired)
            #expect(first?.message.contains("beta") == true)
            #expect(first?.detail.code == "upstream_access_expired")
            #expect(f.calls(Self.login) == 1)
            #expect(f.calls("GET /api/lijst/inbox") == 0, "no data is read for an account without access")

            // Again and again: no new login, no check until the recheck is due.
            for _ in 0..<5 {
                #expect(await Self.error { _ = try await f.inbox("default", bram) }?.kind == .accessExpired)
            }
            #expect(f.calls(Self.login) == 1)
            #expect(f.calls(Self.me) == 0)

            // /v1/sources shows it.
            let input = SourcesInput(
                profileName: "default", profile: ProfileConfig([bram]), vault: f.vault
            ) { _ in
                SourceHealth(
                    UpstreamMonitor.Status(source: UpstreamSource(profile: "default", backend: "tickedify")), zone: .gmt
                )
            }
            let details = await TickedifySourcesPart().details(input)
            #expect(details["access"]?["has_access"] == .bool(false))
            #expect(details["access"]?["expiry_type"] == .string("beta"))

            // After the recheck interval the session is checked (not logged in again).
            f.clock.advance(TickedifyAccess.recheck + 1)
            #expect(await Self.error { _ = try await f.inbox("default", bram) }?.kind == .accessExpired)
            #expect(f.calls(Self.me) == 1)
            #expect(f.calls(Self.login) == 1)
        }
    }

    @Test func accessFromLoginAndMeAnswers() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let login = TickedifyAccess.from(
            .object([
                "success": .bool(true), "requiresUpgrade": .bool(true), "expiryType": .string("beta"),
                "message": .string("Login succesvol, upgrade vereist voor volledige toegang"),
            ]), at: now)
        #expect(login?.hasAccess == false)
        #expect(login?.expiryType == "beta")
        #expect(login?.error?.kind == .accessExpired)
        #expect(TickedifyAccess.from(.object(["success": .bool(true)]), at: now) == nil)
        let me = TickedifyAccess.from(
            .object(["authenticated": .bool(true), "hasAccess": .bool(true), "requiresUpgrade": .bool(false)]), at: now)
        #expect(me?.hasAccess == true && me?.error == nil)
        let fallback = TickedifyAccess.from(.object(["authenticated": .bool(true), "hasAccess": .bool(true)]), at: now)
        #expect(fallback?.hasAccess == true)
        let refused = try! #require(
            TickedifyAccess.from(.object(["hasAccess": .bool(false), "accessMessage": .string("Trial over")]), at: now))
        #expect(!refused.needsRecheck(now: now.addingTimeInterval(TickedifyAccess.recheck - 1)))
        #expect(refused.needsRecheck(now: now.addingTimeInterval(TickedifyAccess.recheck)))
    }
}
