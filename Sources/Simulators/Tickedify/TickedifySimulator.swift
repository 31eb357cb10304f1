import Foundation
import Logging
import Model

/// A simulator of Tickedify (Node 20 / Express 4 / express-session with a Postgres store /
/// express-rate-limit 7), see docs/backends/tickedify.md. The real server is the truth: the
/// recordings of it in `Tests/Fixtures/recordings/tickedify` are replayed against this simulator
/// by `TickedifyConformanceTests`, which lists the exchanges it skips and why (007, needing a
/// missing column, and 121, 122, 124, 125, needing PostgreSQL stopped: there is no database
/// outage here).
///
/// Simulated, on loopback at the server root (the client appends `/api/...`):
/// - Auth by cookie session only: `POST /api/auth/login` (JSON or urlencoded `{email, wachtwoord}`,
///   exact case-sensitive email, 400/401/500 shapes, the `requiresUpgrade` variant, a
///   `Set-Cookie: tickedify.sid=s%3A<sid>.<sig>; Path=/; Expires=…; HttpOnly; SameSite=Lax` on
///   login only), `POST /api/auth/logout` (destroys the server session, sends no Set-Cookie),
///   `GET /api/auth/me`, `GET /api/auth/generate-persistent-token` + `GET /al/:token` (the
///   rate-limit-free re-login: 302 to `/app`, a cookie only for a valid token). Sessions are
///   server-side (in memory here), 24 h, sliding on use; a tampered or unknown cookie is no session.
/// - The login rate limit: `loginLimit` attempts per `loginWindow` per client IP, every attempt
///   counted (successes too; a malformed JSON body fails before the limiter and is not counted),
///   `RateLimit-Policy/-Limit/-Remaining/-Reset` on every login response, then
///   429 + `Retry-After` + `{"error":"Too many authentication attempts, please try again after 15 minutes"}`.
/// - Per-route unauthenticated behaviour exactly as the contract's table: `/api/auth/me` and
///   `/api/counts/sidebar` 401 `{"error":"Not authenticated"}`, `GET /api/lijst/:naam` 404
///   `{"error":"Lijst niet gevonden"}`, `POST /api/taak/add-to-inbox` 500 with `details`,
///   `requireAuth` routes 401 `{"error":"Authentication required"}`, the `dagelijkse-planning`
///   routes but reorder, and `PUT /api/taak/:id`, **close the TCP connection without answering**
///   (the real Node process crashes); each such crash is counted (`GET /_sim/crashes`). Reorder
///   answers 500 `{"error":"Fout bij herordenen dagelijkse planning"}` instead.
///   `POST /api/taak/:id/unarchive` answers 401 `{"error":"Niet ingelogd"}`.
/// - `GET /api/lijsten` (public constant), `GET /api/lijst/:naam` (bare array newest first,
///   snake_case columns with the five camelCase renames appended, `bijlagenCount`; projects and
///   contexts; completed tasks; unknown list → `[]`), `GET /api/counts/sidebar` (`acties` counts only
///   `verschijndatum` null or ≤ today), the legacy `GET /api/tellingen`,
///   `POST /api/taak/add-to-inbox` with its **non-transactional delete-and-reinsert of the whole
///   inbox** (concurrent adds lose tasks; `top_prioriteit`, `prioriteit_datum`, attachments and
///   planning rows of inbox tasks are wiped), `GET /api/dagelijkse-planning/:datum` (ordered by
///   uur, positie, aangemaakt; rows of completed or soft-deleted tasks hidden; an invalid date
///   gives `[]`), `POST /api/dagelijkse-planning` (position shifting, DB constraint failures → 500),
///   `PUT` / `DELETE /api/dagelijkse-planning/:id` (DELETE ignores the owner and leaves the gap,
///   like the real query), `PUT /api/dagelijkse-planning/:id/reorder` (positions shifted in the
///   old and the new hour; a null or missing `targetPosition` appends; a bad `targetUur` is a 404
///   after the old hour's items have moved up), `PUT /api/taak/:id` (the checkbox completion
///   archives the task with the server's time, keeping its list, and deletes its planning items;
///   it makes no next occurrence, `POST /api/taak/recurring` does; otherwise every key is a
///   column), `GET /api/lijst/afgewerkte-taken` (the archive's snake_case rows with `archived_at`) and
///   `POST /api/taak/:id/unarchive` (back into the inbox, not recurring; see
///   `TickedifyBackend+TaskWrites.swift`),
///   `GET /api/ping`, `/api/status`, `/api/version`.
/// - Express details: DATE columns as `YYYY-MM-DDT00:00:00.000Z` (or `YYYY-MM-DD`, see
///   ``DateStyle``), timestamps as ISO with milliseconds, `application/json; charset=utf-8`, weak
///   ETags with 304 on a matching `If-None-Match`, case-insensitive routes with an optional trailing
///   slash, unknown `/api` routes 404 `{"error":"Route /api/nope not found"}`, malformed JSON 500
///   `{"error":"Internal server error","message":"<V8 JSON.parse message>"}`, the security headers
///   `X-Content-Type-Options`, `X-Frame-Options`, `X-XSS-Protection` on every response.
///
/// Simulator controls on the same port: the shared `/_sim/faults` and `/_sim/stats`, plus
/// `GET /_sim/crashes` (`{"count":N}`), `POST /_sim/sessions/expire` (drop every server session, or
/// with `{"cookie":"<tickedify.sid value>"}` expire that one, as an SQL `UPDATE user_sessions` does),
/// `GET /_sim/logins[?ip=…]` (`{"attempts":N,"remaining":M}`, default IP 127.0.0.1),
/// `POST /_sim/ratelimit/reset`, `GET|POST /_sim/options` (`{"date_style":"utc_midnight"|"plain_date"}`)
/// and `POST /_sim/reset` (reload the seeded data; sessions stay).
///
/// Not simulated: registration, password reset, subscriptions/payments, attachments, subtasks,
/// projects/contexts CRUD, task updates and moves (`PUT /api/taak/:id`, …), `/api/admin/*` and
/// `/api/cms/*` (404 here), CORS origin checks (preflights get a bare 204), the web UI (only `/` and
/// `/app` answer a stub page), the process restart after a crash (only the one connection dies; the
/// rate-limit store survives), sessions surviving a simulator restart, and `X-Forwarded-For`
/// (ignored, as the real server has no `trust proxy`). Every client on loopback shares the
/// rate-limit bucket of its socket IP.
public struct TickedifySimulator: Sendable {
    /// How `DATE` columns (`verschijndatum`, `prioriteit_datum`, `due_date`, planning `datum`) come out.
    public enum DateStyle: String, Sendable, CaseIterable {
        /// Production (pg-types 2 on a UTC server): a JS `Date` at midnight, `2026-11-23T00:00:00.000Z`.
        case utcMidnight = "utc_midnight"
        /// Debian's node-pg with pg-types 4: the plain string `2026-11-23`.
        case plainDate = "plain_date"
    }

    /// One account of the simulated `users` table.
    public struct User: Sendable, Equatable {
        /// `user_<ms>_<9 base36>`.
        public var id: String
        /// Matched exactly and case-sensitively at login.
        public var email: String
        public var password: String
        public var naam: String
        /// Beta or trial expired: login still succeeds (with a session), and `/api/auth/me` says
        /// `hasAccess: false`. Only a beta account's login answers `requiresUpgrade: true`; a
        /// regular account whose trial ended logs in with a plain success (recorded: 118, 119).
        public var requiresUpgrade: Bool
        /// `"trial"` or `"beta"`, reported when ``requiresUpgrade`` is set.
        public var expiryType: String
        /// `false` makes login answer 401 `{"error":"Account is gedeactiveerd"}`.
        public var actief: Bool
        /// `users.rol`, echoed in the login response.
        public var rol: String

        public init(
            id: String, email: String, password: String, naam: String, requiresUpgrade: Bool = false,
            expiryType: String = "trial", actief: Bool = true, rol: String = "user"
        ) {
            self.id = id
            self.email = email
            self.password = password
            self.naam = naam
            self.requiresUpgrade = requiresUpgrade
            self.expiryType = expiryType
            self.actief = actief
            self.rol = rol
        }
    }

    /// The demo household's account; the seeded data belongs to it.
    public static let demoEmail = "anna@example.org"
    /// The demo account's password.
    public static let demoPassword = "Tulpen-Fiets-2026!"
    /// The demo account's user id.
    public static let demoUserID = "user_1731401524190_k3x9q2m7a"
    /// A second account whose beta period has ended (login answers `requiresUpgrade: true`, as the
    /// real server does only for beta accounts; a regular account whose trial ended logs in with a
    /// plain success, recorded: 118).
    public static let upgradeEmail = "bram@example.org"
    /// The password of ``upgradeEmail``.
    public static let upgradePassword = "Proefperiode-Voorbij-1"

    /// The accounts a default simulator knows: the demo household and an account whose beta ended.
    public static let defaultUsers: [User] = [
        User(id: demoUserID, email: demoEmail, password: demoPassword, naam: "Anna de Vries"),
        User(
            id: "user_1733829112047_p0c8wz1re", email: upgradeEmail, password: upgradePassword, naam: "Bram Jansen",
            requiresUpgrade: true, expiryType: "beta"
        ),
    ]

    public struct Options: Sendable {
        /// `YYYY-MM-DD`: the household's local "today"; the seeded plan covers seedDay-2 … seedDay+2.
        /// It is also the server's `CURRENT_DATE` at start, advancing with the real clock.
        public var seedDay: String
        /// The household's zone; seeded creation times are local times in it (served as UTC).
        public var timeZone: TimeZone
        /// The accounts; the seed goes to the one with ``TickedifySimulator/demoEmail`` (else the first).
        public var users: [User]
        /// Login attempts allowed per window and client IP (express-rate-limit `limit`).
        public var loginLimit: Int
        /// The rate-limit window (`windowMs`).
        public var loginWindow: Duration
        /// DATE serialization; switchable at runtime with `POST /_sim/options`.
        public var dateStyle: DateStyle
        /// How long add-to-inbox waits between reading the inbox and rewriting it (the real server's
        /// database round trips). Concurrent adds inside this window lose tasks.
        public var inboxRaceWindow: Duration
        /// How many of the first add-to-inbox requests wait for each other after reading the inbox
        /// before any rewrites it (at most 5 s; later adds do not wait): with 4, four concurrent
        /// adds always lose all but one task, however far apart a loaded machine delivers them.
        /// 1 (the default) waits for nobody.
        public var inboxRaceParties: Int

        /// - Parameter seedDay: defaults to today in `timeZone`.
        public init(
            seedDay: String? = nil,
            timeZone: TimeZone = .current,
            users: [User] = TickedifySimulator.defaultUsers,
            loginLimit: Int = 5,
            loginWindow: Duration = .seconds(900),
            dateStyle: DateStyle = .utcMidnight,
            inboxRaceWindow: Duration = .milliseconds(20),
            inboxRaceParties: Int = 1
        ) {
            self.timeZone = timeZone
            self.seedDay = seedDay ?? LocalDate.today(in: timeZone).description
            self.users = users
            self.loginLimit = loginLimit
            self.loginWindow = loginWindow
            self.dateStyle = dateStyle
            self.inboxRaceWindow = inboxRaceWindow
            self.inboxRaceParties = inboxRaceParties
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Starts the simulator and returns once it is listening.
    /// - Parameters:
    ///   - host: 127.0.0.1, ::1 or localhost; anything else throws ``SimulatorError/nonLoopbackHost(_:)``.
    ///   - port: 0 picks a free port (read it from ``RunningSimulator/port``).
    ///   - logger: defaults to a logger at `.warning`.
    public func start(host: String = "127.0.0.1", port: Int = 0, logger: Logger? = nil) async throws -> RunningSimulator
    {
        guard Civil.parseDay(options.seedDay) != nil else { throw SimulatorError.invalidSeedDay(options.seedDay) }
        guard options.loginLimit >= 0 else { throw SimulatorError.startFailed("loginLimit must not be negative") }
        guard options.loginWindow > .zero else { throw SimulatorError.startFailed("loginWindow must be positive") }
        return try await start(store: TickedifyStore(options: options), host: host, port: port, logger: logger)
    }

    /// Starts the simulator on `store` (made from these options; a test may have written its own
    /// rows into it first).
    func start(store: TickedifyStore, host: String = "127.0.0.1", port: Int = 0, logger: Logger? = nil)
        async throws -> RunningSimulator
    {
        // Express sends no `Server` header.
        return try await SimulatorServer.start(
            kind: .tickedify,
            backend: TickedifyBackend(store: store),
            control: SimulatorControl(),
            host: host,
            port: port,
            logger: logger,
            serverName: nil
        )
    }
}
