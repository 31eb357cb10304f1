import Foundation
import Model
import Synchronization

/// The simulator's in-memory database, session store and rate-limit store, safe from any task.
final class TickedifyStore: Sendable {
    struct Data: Sendable {
        var tasks: [TickedifyTask] = []
        var projects: [TickedifyProject] = []
        var contexts: [TickedifyContext] = []
        var planning: [TickedifyPlanItem] = []
    }

    /// express-rate-limit 7's MemoryStore client: a fixed window per key.
    struct LimiterClient: Sendable {
        var totalHits: Int
        var resetAt: Int64
    }

    private struct State {
        var data = Data()
        var sessions: [String: TickedifySession] = [:]
        var limiter: [String: LimiterClient] = [:]
        /// Persistent login tokens (`/al/:token`) → user id.
        var tokens: [String: String] = [:]
        var crashes = 0
        var dateStyle: TickedifySimulator.DateStyle
    }

    private let state: Mutex<State>
    let options: TickedifySimulator.Options
    /// Lines up concurrent add-to-inbox requests (``TickedifySimulator/Options/inboxRaceParties``).
    let inboxRace: TickedifyInboxRace
    let users: [TickedifySimulator.User]
    /// The account owning the seeded data.
    let seedUser: TickedifySimulator.User?
    /// The household's local day when the simulator started; `CURRENT_DATE` advances from seedDay with it.
    private let startLocalDay: Int

    init(options: TickedifySimulator.Options) {
        self.options = options
        self.inboxRace = TickedifyInboxRace(parties: options.inboxRaceParties)
        self.users = options.users
        self.seedUser = options.users.first { $0.email == TickedifySimulator.demoEmail } ?? options.users.first
        self.startLocalDay = LocalDate.today(in: options.timeZone).dayNumber
        self.state = Mutex(State(dateStyle: options.dateStyle))
        reseed()
    }

    // MARK: - Data

    var dateStyle: TickedifySimulator.DateStyle {
        get { state.withLock { $0.dateStyle } }
        set { state.withLock { $0.dateStyle = newValue } }
    }

    /// The server's `CURRENT_DATE`: seedDay, moved on by the days that passed since the start.
    var currentDate: String {
        let localToday = LocalDate.today(in: options.timeZone).dayNumber
        return TickedifyTime.shift(options.seedDay, localToday - startLocalDay)
    }

    func reseed() {
        let seeded =
            seedUser.map { TickedifySeed.data(seedDay: options.seedDay, timeZone: options.timeZone, userId: $0.id) }
            ?? Data()
        state.withLock { $0.data = seeded }
    }

    /// Reads the data under the lock.
    func read<R>(_ body: (Data, TickedifySimulator.DateStyle) -> R) -> R {
        state.withLock { body($0.data, $0.dateStyle) }
    }

    /// Changes the data under the lock.
    func write<R>(_ body: (inout Data) -> R) -> R {
        state.withLock { body(&$0.data) }
    }

    func user(id: String) -> TickedifySimulator.User? {
        users.first { $0.id == id }
    }

    // MARK: - Sessions

    /// The live session a `Cookie` header names, touched (expiry pushed ahead); nil when the cookie
    /// is missing, unsigned, tampered with, unknown or expired.
    func session(cookieHeaders: [String], now: Int64 = TickedifyTime.nowMs()) -> TickedifySession? {
        guard let raw = TickedifyCookies.value(named: TickedifyCookies.name, in: cookieHeaders),
            let (sid, signature) = TickedifyCookies.unsign(raw)
        else { return nil }
        return state.withLock { s in
            guard var session = s.sessions[sid], session.signature == signature else { return nil }
            if session.expiresAt <= now {
                s.sessions[sid] = nil
                return nil
            }
            session.expiresAt = now + TickedifyCookies.maxAgeMs
            s.sessions[sid] = session
            return session
        }
    }

    /// Stores a logged-in session for `user`, reusing `existing` (same sid) when given.
    func login(_ user: TickedifySimulator.User, existing: TickedifySession?, now: Int64 = TickedifyTime.nowMs())
        -> TickedifySession
    {
        let session = TickedifySession(
            sid: existing?.sid ?? TickedifyCookies.newSessionID(),
            signature: existing?.signature ?? TickedifyCookies.newSignature(),
            userId: user.id,
            userEmail: user.email,
            userNaam: user.naam,
            expiresAt: now + TickedifyCookies.maxAgeMs
        )
        state.withLock { $0.sessions[session.sid] = session }
        return session
    }

    func destroy(_ session: TickedifySession) {
        _ = state.withLock { $0.sessions.removeValue(forKey: session.sid) }
    }

    /// Drops every session; returns how many there were.
    func expireAllSessions() -> Int {
        state.withLock { s in
            let n = s.sessions.count
            s.sessions = [:]
            return n
        }
    }

    /// Sets the expiry of the session a `tickedify.sid` cookie value names into the past, as
    /// `UPDATE user_sessions SET expire = now() - interval '1 minute'` does; the next request with
    /// it is not logged in. Returns whether there was such a session.
    func expireSession(cookieValue: String, now: Int64 = TickedifyTime.nowMs()) -> Bool {
        let raw = cookieValue.contains("%") ? percentDecode(cookieValue, plusAsSpace: false) : cookieValue
        guard let (sid, signature) = TickedifyCookies.unsign(raw) else { return false }
        return state.withLock { s in
            guard s.sessions[sid]?.signature == signature else { return false }
            s.sessions[sid]?.expiresAt = now - 60_000
            return true
        }
    }

    var sessionCount: Int { state.withLock { $0.sessions.count } }

    // MARK: - Persistent tokens

    func newToken(for userId: String) -> String {
        let hex = Array("0123456789abcdef")
        let token = String(TickedifyCookies.randomBytes(30).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0f)]] })
        state.withLock { s in
            s.tokens = s.tokens.filter { $0.value != userId }
            s.tokens[token] = userId
        }
        return token
    }

    func user(forToken token: String) -> TickedifySimulator.User? {
        guard let id = state.withLock({ $0.tokens[token] }) else { return nil }
        return user(id: id)
    }

    // MARK: - Rate limit

    /// Counts one login attempt from `key` and returns the client after counting.
    func hitLogin(key: String, now: Int64 = TickedifyTime.nowMs()) -> LimiterClient {
        let window = windowMs
        return state.withLock { s in
            var client = s.limiter[key] ?? LimiterClient(totalHits: 0, resetAt: now + window)
            if client.resetAt <= now { client = LimiterClient(totalHits: 0, resetAt: now + window) }
            client.totalHits += 1
            s.limiter[key] = client
            return client
        }
    }

    /// Attempts counted for `key` in its current window.
    func loginAttempts(key: String, now: Int64 = TickedifyTime.nowMs()) -> Int {
        state.withLock { s in
            guard let client = s.limiter[key], client.resetAt > now else { return 0 }
            return client.totalHits
        }
    }

    func resetLimiter() {
        state.withLock { $0.limiter = [:] }
    }

    var windowMs: Int64 {
        let (seconds, attoseconds) = options.loginWindow.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    // MARK: - Crashes

    func recordCrash() {
        state.withLock { $0.crashes += 1 }
    }

    var crashes: Int { state.withLock { $0.crashes } }
}
