import AsyncHTTPClient
import Backends
import Foundation
import Gates
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Synchronization
import Testing

/// The session trust against the Tickedify simulator, which crashes (drops the connection,
/// counted at `/_sim/crashes`) on a planning route called without a valid session. The
/// sessions' clock is a test clock, moved forward instead of sleeping.
@Suite("Tickedify session trust against the simulator")
struct TickedifySessionTrustSimulatorTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let me = "GET /api/auth/me"
    static let login = "POST /api/auth/login"

    final class TestClock: Sendable {
        private let value = Mutex(Date())

        func now() -> Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    }

    /// The keeper's sleep for a test: held until the test releases it, then the test clock moves
    /// by the time slept instead.
    final class HeldSleep: Sendable {
        private let gate = Mutex(Gate())
        let clock: TestClock

        init(clock: TestClock) { self.clock = clock }

        func sleep(_ seconds: TimeInterval) async {
            await gate.withLock { $0 }.wait()
            clock.advance(seconds)
        }

        /// Lets the keeper sleep (and so run) until `hold()`.
        func release() { gate.withLock { $0 }.open() }

        func hold() { gate.withLock { $0 = Gate() } }
    }

    /// A simulator, a vault that outlives "restarts", one HTTP client and the test clock.
    struct Fixture {
        let sim: RunningSimulator
        let vault = MemoryCredentialVault()
        let clock = TestClock()
        let http = UpstreamHTTP(client: .shared)
        var window: TimeInterval = 30
        var keepWarm: TimeInterval = 0

        /// A gateway's sessions as after a (re)start: nothing in memory, the vault as it is.
        func restart() -> SessionRegistry {
            SessionRegistry(vault: vault, now: { [clock] in clock.now() })
        }

        var settings: TickedifySettings {
            TickedifySettings(
                endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), email: TickedifySimulator.demoEmail,
                password: Secret(TickedifySimulator.demoPassword), sessionTrust: .seconds(window),
                sessionKeepWarm: .seconds(keepWarm)
            )
        }

        /// A gateway's sessions whose keeper sleeps on a `HeldSleep` of the test clock, and the
        /// account's session in them.
        func keptWarm() -> (HeldSleep, SessionRegistry, TickedifySession) {
            let held = HeldSleep(clock: clock)
            let sessions = SessionRegistry(
                vault: vault, now: { [clock] in clock.now() }, sleep: { await held.sleep($0) })
            return (held, sessions, TickedifyClient(settings: settings, context: context(sessions)).session)
        }

        func context(_ sessions: SessionRegistry) -> OperationContext {
            OperationContext(
                profileName: "default", profile: ProfileConfig([settings]),
                clock: RequestClock(now: Date(), timeZone: zone), http: http,
                sessions: sessions, logger: Logger(label: "test")
            )
        }

        /// `tickedify.daily_plan` for `date` (default today): `GET /api/dagelijkse-planning/{date}`.
        func plan(_ sessions: SessionRegistry, _ date: LocalDate = LocalDate.today(in: zone)) async throws {
            _ = try await TickedifyDailyPlanOperation().fetch(["date": .date(date)], context: context(sessions))
        }

        func calls(_ key: String) -> Int { sim.control.calls(key) }

        func planningCalls(_ date: LocalDate = LocalDate.today(in: zone)) -> Int {
            calls("GET /api/dagelijkse-planning/\(date)")
        }

        func control(_ method: HTTPMethod, _ path: String, json: String? = nil) async throws -> JSONValue {
            try await SimulatorBackedTest.call(sim, method, path, json: json)
        }

        func crashes() async throws -> Int {
            Int(try await control(.GET, "/_sim/crashes")["count"]?.numberValue ?? -1)
        }

        /// Login attempts the simulator counted (refused ones too).
        func loginAttempts() async throws -> Int {
            Int(try await control(.GET, "/_sim/logins")["attempts"]?.numberValue ?? -1)
        }

        func expireServerSessions() async throws {
            _ = try await control(.POST, "/_sim/sessions/expire")
        }
    }

    static func withFixture(
        window: TimeInterval = 30, keepWarm: TimeInterval = 0, loginLimit: Int = 5,
        _ body: (Fixture) async throws -> Void
    ) async throws {
        let options = TickedifySimulator.Options(
            seedDay: LocalDate.today(in: zone).description, timeZone: zone, loginLimit: loginLimit
        )
        let sim = try await TickedifySimulator(options: options).start()
        var fixture = Fixture(sim: sim)
        fixture.window = window
        fixture.keepWarm = keepWarm
        do {
            try await body(fixture)
        } catch {
            await sim.stop()
            throw error
        }
        await sim.stop()
    }

    // MARK: - The window

    /// (a) A cold start with a cookie in the vault: the first planning call checks the session,
    /// the next ones inside the window do not; one after the window checks again.
    @Test func planningCallsInsideTheWindowMakeOneCheck() async throws {
        try await Self.withFixture { f in
            try await f.plan(f.restart())
            #expect(f.calls(Self.login) == 1)
            #expect(f.calls(Self.me) == 0, "a login proves the session it makes")

            let restarted = f.restart()
            try await f.plan(restarted)
            #expect(f.calls(Self.me) == 1, "the trust is not kept across a restart")
            f.clock.advance(29)
            try await f.plan(restarted)
            #expect(f.calls(Self.me) == 1, "two planning calls inside the window, one check")
            f.clock.advance(31)
            try await f.plan(restarted)
            #expect(f.calls(Self.me) == 2, "31 s after the last proof: checked again")
            #expect(f.planningCalls() == 4)
            #expect(f.calls(Self.login) == 1, "the cookie came from the vault")
            #expect(try await f.crashes() == 0)
        }
    }

    // MARK: - Keeping the session warm

    /// A session in use is kept proven by checks of its own just before its proof runs out, so
    /// the first planning call after a pause needs no check; once nothing used it for
    /// `session_keep_warm` it is left alone, and the next call checks first. The keeper's
    /// sleeps move the test clock.
    @Test func aSessionInUseIsKeptProvenThroughAPauseAndLeftAloneWhenIdle() async throws {
        try await Self.withFixture(keepWarm: 120) { f in
            let (held, sessions, session) = f.keptWarm()
            let start = f.clock.now()
            try await f.plan(sessions)
            #expect(f.calls(Self.login) == 1)
            #expect(f.calls(Self.me) == 0)
            #expect(await session.isKeepingWarm)
            held.release()
            await session.keeperStopped()
            held.hold()
            #expect(f.calls(Self.me) == 4, "checks at 25, 50, 75 and 100 s; 125 s is past the 120 s")
            #expect(f.clock.now().timeIntervalSince(start) == 100)

            f.clock.advance(25)
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 4, "125 s after the last planning call, still proven: no check")
            held.release()
            await session.keeperStopped()
            held.hold()
            #expect(f.calls(Self.me) == 8, "kept warm again after that call")

            f.clock.advance(300)
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 9, "idle for longer than keep-warm: checked before the call")
            #expect(f.planningCalls() == 3)
            #expect(f.calls(Self.login) == 1)
            #expect(try await f.crashes() == 0)
            held.release()
            await session.keeperStopped()
        }
    }

    /// A keep-warm check answered 401 (the server forgot the session) ends the trust and the
    /// keeping; it never logs in by itself, and the next planning call checks first.
    @Test func aKeepWarmCheckThatFindsTheSessionGoneEndsTheTrustWithoutALogin() async throws {
        try await Self.withFixture(keepWarm: 120) { f in
            let (held, sessions, session) = f.keptWarm()
            try await f.plan(sessions)
            try await f.expireServerSessions()
            held.release()
            await session.keeperStopped()
            #expect(f.calls(Self.me) == 1, "one check, answered 401; no more")
            #expect(f.calls(Self.login) == 1, "the keeper does not log in")
            #expect(await session.state.provenAt == nil)
            #expect(try await f.crashes() == 0)
        }
    }

    @Test func aWindowOfZeroChecksBeforeEveryPlanningCall() async throws {
        try await Self.withFixture(window: 0) { f in
            let sessions = f.restart()
            try await f.plan(sessions)
            try await f.plan(sessions)
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 3)
            #expect(f.calls(Self.login) == 1)
        }
    }

    /// Planning calls that start together after a cold start still share one check.
    @Test func coldPlanningCallsStartingTogetherShareOneCheck() async throws {
        try await Self.withFixture { f in
            try await f.plan(f.restart())
            let restarted = f.restart()
            f.sim.control.setFaults(SimulatorFaults(latencyMs: 150))
            let today = LocalDate.today(in: Self.zone)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for day in 1...5 {
                    group.addTask { try await f.plan(restarted, today.adding(days: day)) }
                }
                try await group.waitForAll()
            }
            #expect(f.calls(Self.me) == 1)
            #expect(try await f.crashes() == 0)
        }
    }

    /// (b) The server forgot the session; once the window has passed the gateway checks first,
    /// logs in again, and the planning route never sees a call without a session.
    @Test func aSessionExpiredServerSideAfterTheWindowIsCheckedNotCrashed() async throws {
        try await Self.withFixture { f in
            let sessions = f.restart()
            try await f.plan(sessions)
            try await f.expireServerSessions()
            f.clock.advance(31)
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 1)
            #expect(f.calls(Self.login) == 2)
            #expect(try await f.crashes() == 0)
        }
    }

    /// The risk the window takes: a session the server forgets inside it costs one crashed
    /// planning call; that failure ends the trust, so the next call checks and recovers.
    @Test func aSessionForgottenInsideTheWindowCostsOneCrashedCall() async throws {
        try await Self.withFixture { f in
            let sessions = f.restart()
            try await f.plan(sessions)
            try await f.expireServerSessions()
            f.clock.advance(5)
            await #expect(throws: BackendError.self) { try await f.plan(sessions) }
            #expect(try await f.crashes() == 1)
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 1)
            #expect(f.calls(Self.login) == 2)
            #expect(try await f.crashes() == 1)
        }
    }

    // MARK: - Dropped connections

    /// (d) and (e): a planning call whose connection is reset is not retried, and it ends the
    /// trust: the next planning call (inside the window) checks first. The server forgot the
    /// session meanwhile, so a call on trust would have crashed it.
    @Test func afterAResetTheNextPlanningCallChecksFirstAndNothingWasRetried() async throws {
        try await Self.withFixture { f in
            let sessions = f.restart()
            try await f.plan(sessions)
            #expect(f.planningCalls() == 1)

            f.sim.control.setFaults(SimulatorFaults(down: SimulatorFaults.reset))
            do {
                try await f.plan(sessions)
                Issue.record("the reset must fail the call")
            } catch let error as BackendError {
                #expect(error.kind == .unreachable)
            }
            #expect(f.planningCalls() == 2, "one call, no automatic retry")
            #expect(f.calls(Self.me) == 0, "inside the window the call went out on trust")

            f.sim.control.clearFaults()
            try await f.expireServerSessions()
            f.clock.advance(1)
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 1, "checked first")
            #expect(f.calls(Self.login) == 2)
            #expect(f.planningCalls() == 3)
            #expect(try await f.crashes() == 0)
        }
    }

    /// A dropped connection on any Tickedify call (here the sidebar counts, which may be
    /// retried) ends the trust too: the server may have crashed and lost what it knew.
    @Test func aResetOnAnyCallEndsTheTrust() async throws {
        try await Self.withFixture { f in
            let sessions = f.restart()
            try await f.plan(sessions)
            f.sim.control.setFaults(SimulatorFaults(down: SimulatorFaults.reset))
            await #expect(throws: BackendError.self) {
                _ = try await TickedifyCountsOperation().fetch([:], context: f.context(sessions))
            }
            f.sim.control.clearFaults()
            try await f.expireServerSessions()
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 1, "checked first")
            #expect(try await f.crashes() == 0)
        }
    }

    // MARK: - The cookie's expiry

    /// (c) Within an hour of its expiry the cookie is replaced by a login before the planning
    /// call, once; the expiry came from the vault (a restart in between).
    @Test func nearItsExpiryTheCookieIsRenewedAheadOfTimeOnce() async throws {
        try await Self.withFixture { f in
            try await f.plan(f.restart())
            #expect(f.calls(Self.login) == 1)

            let restarted = f.restart()
            f.clock.advance(23 * 3600 + 30 * 60)
            try await f.expireServerSessions()
            try await f.plan(restarted)
            #expect(f.calls(Self.login) == 2, "renewed ahead of time")
            #expect(f.calls(Self.me) == 0, "the login proved the new cookie")
            f.clock.advance(1)
            try await f.plan(restarted)
            #expect(f.calls(Self.login) == 2, "the new cookie has a day to go")
            #expect(try await f.crashes() == 0)
            let settings = try #require(f.context(restarted).profile.tickedify)
            let session = restarted.tickedifySession(
                scope: TickedifyClient.scope(settings), baseURL: settings.endpoint.baseURL, policy: .standard)
            let expires = try #require(await session.state.expires)
            #expect(abs(expires.timeIntervalSince(f.clock.now()) - 24 * 3600) < 60)
        }
    }

    /// (c) When the early login is refused, the cookie is kept (no second attempt) and, within
    /// ten minutes of its expiry, checked before every planning call.
    @Test func aRefusedEarlyLoginKeepsTheCookieCheckedAndIsNotRepeated() async throws {
        try await Self.withFixture(loginLimit: 1) { f in
            let sessions = f.restart()
            try await f.plan(sessions)
            #expect(try await f.loginAttempts() == 1)

            f.clock.advance(24 * 3600 - 5 * 60)
            try await f.plan(sessions)
            #expect(try await f.loginAttempts() == 2, "one early login, refused (429)")
            #expect(f.calls(Self.me) == 1, "five minutes from its expiry the cookie is checked")
            f.clock.advance(1)
            try await f.plan(sessions)
            #expect(try await f.loginAttempts() == 2, "the early login is not repeated")
            #expect(f.calls(Self.me) == 2, "checked again, although the last call proved it a second ago")
            #expect(f.planningCalls() == 3)

            // The server forgets it: the check sees that, the login is blocked, nothing crashes.
            try await f.expireServerSessions()
            f.clock.advance(1)
            do {
                try await f.plan(sessions)
                Issue.record("the login is blocked after the 429")
            } catch let error as BackendError {
                #expect(error.kind == .reauthBlocked)
            }
            #expect(try await f.loginAttempts() == 2)
            #expect(try await f.crashes() == 0)
        }
    }
}
