import Foundation
import Logging
import Model

/// A contract-faithful simulator of the PRSNL personal knowledge base backend (FastAPI +
/// asyncpg), see docs/backends/prsnl.md. The API lives under `/api` on the server root
/// (``RunningSimulator/apiBaseURL`` is the root; clients append `/api/...`).
///
/// Simulated, quirks included:
/// - `POST /api/auth/login` (`{"email","password"}`) and `POST /api/auth/refresh`
///   (`{"refresh_token"}`): HS256 JWTs (`{sub,exp,type,jti}`), access 30 min, refresh 7 days,
///   refresh tokens rotate (the old one is revoked on use); the refresh answer's `expires_in` is
///   a hard-coded (wrong) 3600.
/// - Hard Bearer (`POST /api/capture`, `GET /api/tags`, `GET /api/tags/recent`): 401
///   `{"detail":"Authentication required"}` or `{"detail":"Token has expired"}`; the token type is
///   not checked (a refresh token works) and the user is not looked up.
/// - Optional Bearer on `GET /api/timeline`: no header shows every user's items; a valid access
///   token filters to its user; anything else (expired, refresh token, garbage) silently falls
///   back to the hard-coded test user ``testUserID`` and shows *its* items, still 200.
/// - `GET /api/timeline?limit&cursor` (camelCase `createdAt`/`updatedAt`, `next_cursor` in
///   `+00:00` form only when a page is full; an unencoded `+` in the cursor becomes a space and
///   gives 400 `Invalid cursor format.`; every status but deleted ones, failed captures included;
///   pages on `created_at < cursor` with no tie-break, so a page ending inside a group of items
///   saved in one microsecond skips the rest of the group — `POST /_sim/import` makes such a
///   group), `GET /api/items/{uuid}` (snake_case, `status` always
///   "completed", no auth), `GET /api/tags` (`[{"name","count"}]`), `GET /api/tags/recent`.
/// - `GET /api/search?query=`: 422 when only `q` is sent, otherwise always 500
///   `{"detail":"An unexpected error occurred","code":"INTERNAL_SERVER_ERROR"}` (upstream bug).
///   The working alternative `POST /api/search/` (`{"query","search_type","limit","threshold",
///   "include_duplicates","filters"}`) does keyword search over every user's items; `semantic`
///   finds nothing (no embeddings); any Bearer header makes it 500 `Search failed: 'User' object
///   has no attribute 'get'`. `POST /api/search` (no slash) is a 405.
/// - `POST /api/capture`: 201 `{"id","status":"pending",...}`; 400 for nothing to capture, a bad
///   `content_type` or a duplicate URL of the same user; 500 `cannot access local variable
///   'metadata'` for a non-GitHub URL with `content_type` absent or "auto" (upstream bug: send
///   an explicit type such as "link", "article" or "note").
/// - Rate limits (slowapi, fixed 60 s windows, one client IP): capture 30/min, `POST
///   /api/search/` 50/min (``Options/rateLimitPerMinute``, ``Options/searchRateLimitPerMinute``;
///   nil = off): 429, `Retry-After: 60`, `{"error":"rate_limit_exceeded","message":"Rate limit
///   exceeded: 30 per 1 minute","retry_after":null}`. Checked after auth and validation.
/// - `GET /api/analytics/trends?timeframe=7d|30d|90d|1y` (not user-scoped; a bad timeframe is a
///   500), `GET /api/health`, `GET /api/health/live`, and `GET /health` (always 503: no Azure).
///
/// Simulator controls on the same port: the shared `/_sim/faults` and `/_sim/stats`, plus
/// `POST /_sim/tokens/expire` (optional body `{"tokens":"access"|"refresh"|"static"|"all"}`,
/// default "access": tokens issued so far now count as expired), `GET /_sim/auth` (login and
/// refresh counts), `GET|POST /_sim/options` (`{"rate_limit_per_minute":N|null,
/// "search_rate_limit_per_minute":N|null, "search_error":"…"|null}` — `search_error` makes every
/// search fail inside the service, answered as PRSNL's `enhanced_search_service` does when its
/// query raises: 200 `{"results": [], "error": "…"}`) and `POST /_sim/reset` (reload the seed,
/// forget sessions, counters and rate-limit windows).
///
/// Not simulated: background processing of captures (they stay "pending" with no summary or
/// content), file uploads, embeddings and semantic ranking, Redis caching, `X-API-Key` (ignored
/// upstream too), the other routers (ai, insights, knowledge graph, websockets, …) and
/// `/api/openapi.json`; those paths answer 404.
public struct PRSNLSimulator: Sendable {
    /// The demo user's login.
    public static let demoEmail = "alex@example.com"
    public static let demoPassword = "prsnl-demo-password"
    /// The demo user's id (`sub` of its tokens).
    public static let demoUserID = "5b7c2a9e-3d41-4f8a-9c62-0e1f7a4b8d35"
    /// PRSNL's hard-coded fallback user for invalid tokens on optional-auth routes.
    public static let testUserID = "f92d9270-2416-4ddb-a1d2-a72fe3e43296"
    /// The default `SECRET_KEY` the simulator signs with.
    public static let demoSecretKey = "prsnl-simulator-secret-key"
    /// jti of ``demoToken``.
    static let demoTokenID = "prsnl-demo-static-token"
    /// A long-lived access token for the demo user (expires 2100-01-01), signed with
    /// ``demoSecretKey``: works as a static Bearer token until `/_sim/tokens/expire` with
    /// `{"tokens":"static"}` (or a different ``Options/secretKey``).
    public static let demoToken = PRSNLJWT.encode(
        [
            "sub": .string(demoUserID), "exp": .int(4_102_444_800), "type": .string("access"),
            "jti": .string(demoTokenID),
        ],
        secret: demoSecretKey
    )

    public struct Options: Sendable {
        /// `YYYY-MM-DD`: the household's local "today"; items are seeded over the two weeks before it.
        public var seedDay: String
        /// The household's zone; seeded times are local times in it (stored and served as UTC).
        public var timeZone: TimeZone
        /// The demo user's login.
        public var email: String
        public var password: String
        /// `SECRET_KEY` for HS256.
        public var secretKey: String
        /// Access-token lifetime in seconds (PRSNL: 30 min; `expires_in` still says 3600).
        public var accessTokenLifetime: TimeInterval
        /// Refresh-token lifetime in seconds (PRSNL: 7 days).
        public var refreshTokenLifetime: TimeInterval
        /// `POST /api/capture` limit per 60 s window; nil disables it (`RATE_LIMITING_ENABLED=false`).
        public var rateLimitPerMinute: Int?
        /// `POST /api/search/` limit per 60 s window; nil disables it.
        public var searchRateLimitPerMinute: Int?

        /// - Parameter seedDay: defaults to today in `timeZone`.
        public init(
            seedDay: String? = nil,
            timeZone: TimeZone = .current,
            email: String = PRSNLSimulator.demoEmail,
            password: String = PRSNLSimulator.demoPassword,
            secretKey: String = PRSNLSimulator.demoSecretKey,
            accessTokenLifetime: TimeInterval = 30 * 60,
            refreshTokenLifetime: TimeInterval = 7 * 24 * 3600,
            rateLimitPerMinute: Int? = 30,
            searchRateLimitPerMinute: Int? = 50
        ) {
            self.timeZone = timeZone
            self.seedDay = seedDay ?? LocalDate.today(in: timeZone).description
            self.email = email
            self.password = password
            self.secretKey = secretKey
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.rateLimitPerMinute = rateLimitPerMinute
            self.searchRateLimitPerMinute = searchRateLimitPerMinute
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
        let store = try PRSNLStore(options: options)
        return try await SimulatorServer.start(
            kind: .prsnl,
            backend: PRSNLBackend(store: store),
            control: SimulatorControl(),
            host: host,
            port: port,
            logger: logger
        )
    }
}
