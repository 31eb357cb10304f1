import Foundation
import Logging
import Model

/// A contract-faithful simulator of the FitIQ backend (Go, SQLite, swagger v0.32.0), see
/// docs/backends/fitiq.md.
///
/// Served on loopback, the API at the root (`apiBaseURL` is `http://127.0.0.1:PORT`; clients
/// append `/api/v1/...`):
/// - `GET /health` → `{"status":"ok"}` and `GET /ready`, without an API key.
/// - Every other call needs `X-API-Key` (missing → 401 `{"error":{"message":"API key is required"}}`,
///   wrong → 401 `{"error":{"message":"Invalid API key"}}`), also `/auth/*` and unknown paths.
/// - Auth: `POST /api/v1/auth/login {email,password}` → `{"data":{"access_token","refresh_token"}}`
///   (no `expires_in`; read the JWT's `exp`); `POST /api/v1/auth/refresh {refresh_token}` → a new
///   pair; `POST /api/v1/auth/register` → 201 / 409. Access tokens are JWT-shaped (base64url header
///   and payload with `sub`, `user_id`, `email`, `iat`, `exp` in Unix seconds; opaque signature) and
///   are validated by lookup. Refresh tokens are 64 hex characters and single-use (rotation):
///   presenting one a second time answers 401 `{"error":{"message":"refresh token has been revoked"}}`
///   and revokes every still-active refresh token of that login's family (already issued access
///   tokens stay valid until they expire). Unknown → 401 `invalid refresh token`; expired → 401
///   `refresh token has expired`.
/// - User routes need `Authorization: Bearer <access token>`; missing, unknown or expired →
///   401 `{"error":{"message":"Invalid authentication"}}`.
/// - `GET /api/v1/food-logs/summary?date=YYYY-MM-DD` (DailyNutritionSummaryResponse, snake_case,
///   in `{"data":…}`; `date` defaults to today in UTC; `remaining_cals` = goal − consumed, may be
///   negative, 0 without a goal), `GET /api/v1/food-logs?start_date&end_date&meal_type`
///   (`{"logs","total"}`, newest first), `POST /api/v1/food-logs` (201; 404 `food not found`),
///   `DELETE /api/v1/food-logs/{id}` (204/403/404).
/// - `GET /api/v1/workouts?limit&offset`, `GET /api/v1/workouts/date-range?start_date&end_date`
///   (RFC 3339 datetimes, required: a bare date is 400), `GET /api/v1/workouts/activity/{type}`,
///   `POST /api/v1/workouts`, `GET|PUT|DELETE /api/v1/workouts/{id}`; pages are
///   `{"workouts","total","limit","offset","has_more"}`, newest first, limit 1…100.
/// - `GET /api/v1/sleep?from&to&limit&offset` (days; defaults: 30 days ago … today, UTC; a session
///   belongs to the UTC day its `start_time` falls on, so last night is found under yesterday's
///   date) with `averages` (null when empty); `POST /api/v1/sleep` (201, or 200 with the existing
///   session when `source_id` repeats).
/// - `GET /api/v1/foods/{id}`, `/api/v1/foods/barcode/{code}`, `/api/v1/foods/search?q` (API key only,
///   the global library only): a food log carries only `food_id`, the name and nutrients come from
///   here, or for a user's own food from `GET /api/v1/users/me/foods` (`{"foods","total"}`).
/// - Meal logs, a resource of their own (the FitIQ app logs meals only here):
///   `POST /api/v1/meal-logs/natural {raw_input, meal_type, logged_at?}` → 201 `processing`, parsed
///   ``Options/mealProcessingSeconds`` later (`FitIQMealParser`, a small table of common foods) into
///   `completed` with items and totals, or `failed`; `POST /api/v1/meal-logs/batch` → 201 `manual`;
///   `GET /api/v1/meal-logs?status&start_date&end_date&limit&offset`
///   (`{"meal_logs","total_count","limit","offset","has_more"}`, newest first, UTC days);
///   `GET|DELETE /api/v1/meal-logs/{id}` (403 another user's, 404).
/// - ``Options/rangeEndExclusive``: `end_date` (food and meal logs) and sleep's `to` leave their
///   own day out (the specification does not say which; both readings are tested).
/// - Days are UTC days throughout (the server's dates are UTC), times are written like Go's
///   `time.Time` (`2026-11-23T06:45:00Z`, fractions trimmed) and floats like `encoding/json`
///   (`12`, not `12.0`); optional fields that are unset are left out (`omitempty`).
/// - Unknown routes: 404 `404 page not found` (text/plain), no 405; a trailing slash redirects
///   (301 for GET, 307 otherwise), as Gin does.
/// - ``Options/guideShape``: the summary instead comes in the iOS guide's shape,
///   `{"success":true,"data":{"date","totalCalories","totalProteinG","totalCarbsG","totalFatG",
///   "totalFiberG","mealBreakdown":{meal:{calories,proteinG,carbsG,fatG,itemCount}}},"error":null}`.
///
/// Simulator controls on the same port: the shared `/_sim/faults` (error answers use the
/// `{"error":{"message":"simulated failure"}}` shape) and `/_sim/stats`, plus
/// `POST /_sim/tokens/expire` (every access token issued so far is expired: the next call with it
/// is a 401; refresh tokens still work) → `{"expired":N}`, `GET /_sim/auth` →
/// `{"logins":N,"refreshes":M,"rejected_refreshes":K}`, `GET|POST /_sim/options`
/// (`{"guide_shape":bool,"range_end_exclusive":bool,"meal_processing_seconds":s,
/// "access_token_lifetime":s,"refresh_token_lifetime":s}`, lifetimes apply to tokens issued
/// afterwards) and `POST /_sim/reset` (reload the seed, forget every token and
/// counter; options stay).
///
/// Not simulated: logout, profiles/preferences endpoints (the calorie goal comes from
/// ``User/dailyCalorieGoal``), photo meal recognition, `PUT /api/v1/meal-logs/{id}`, the real AI's
/// parsing (the simulator's is a word table), exercises and templates, goals,
/// progress, analytics, consultations, mood, wellness, WebSockets and `/swagger`. Error messages
/// other than `Invalid authentication` and `refresh token has been revoked` are plausible
/// guesses (the server's source is not public); rate limits are not simulated.
public struct FitIQSimulator: Sendable {
    /// An account the simulator knows, with the daily calorie goal its preferences hold.
    public struct User: Sendable, Equatable {
        public var email: String
        public var password: String
        public var name: String
        /// `daily_calorie_goal`; 0 means no goal (the summary then reports `calorie_goal` 0 and `remaining_cals` 0).
        public var dailyCalorieGoal: Int

        public init(email: String, password: String, name: String, dailyCalorieGoal: Int) {
            self.email = email
            self.password = password
            self.name = name
            self.dailyCalorieGoal = dailyCalorieGoal
        }
    }

    /// The `X-API-Key` the demo configuration uses.
    public static let demoAPIKey = "fitiq-demo-api-key-2025"
    /// The demo account (the household member with the seeded history).
    public static let demoEmail = "anna@example.org"
    public static let demoPassword = "Anna-Demo-2025!"
    /// Anna (calorie goal 2200, full history) and Bas (goal 2600, one breakfast and one workout).
    public static let demoUsers: [User] = [
        User(email: demoEmail, password: demoPassword, name: "Anna de Vries", dailyCalorieGoal: 2200),
        User(email: "bas@example.org", password: "Bas-Demo-2025!", name: "Bas de Vries", dailyCalorieGoal: 2600),
    ]

    public struct Options: Sendable {
        /// `YYYY-MM-DD`: the household's local "today"; meals, workouts and sleep are seeded around it.
        public var seedDay: String
        /// The household's zone; seeded times are local wall times in it, stored and served as UTC.
        public var timeZone: TimeZone
        /// The only `X-API-Key` accepted.
        public var apiKey: String
        /// Known accounts; the first one gets the seeded history, the others a little data.
        public var users: [User]
        /// Seconds an access token is valid (default 900).
        public var accessTokenLifetime: TimeInterval
        /// Seconds a refresh token is valid (default 7 days).
        public var refreshTokenLifetime: TimeInterval
        /// Answer the daily summary in the iOS guide's camelCase `success` envelope instead of the
        /// contract's `{"data":{…snake_case…}}`; switchable at runtime with `POST /_sim/options`.
        public var guideShape: Bool
        /// Seconds a meal logged in words (`POST /api/v1/meal-logs/natural`) stays `processing`
        /// before the simulated AI has parsed it (the specification: "typically 2-5 seconds").
        public var mealProcessingSeconds: TimeInterval
        /// Whether `end_date` (food and meal logs) and `to` (sleep) leave their own day out. The
        /// specification does not say; the default includes it, and tests run both readings.
        public var rangeEndExclusive: Bool
        /// The simulator's clock: when a request arrives, so when a token was issued and whether
        /// it has expired. Tests pass one they move forward instead of waiting out a lifetime.
        public var clock: @Sendable () -> Date

        /// - Parameter seedDay: defaults to today in `timeZone`.
        public init(
            seedDay: String? = nil,
            timeZone: TimeZone = .current,
            apiKey: String = FitIQSimulator.demoAPIKey,
            users: [User] = FitIQSimulator.demoUsers,
            accessTokenLifetime: TimeInterval = 900,
            refreshTokenLifetime: TimeInterval = 7 * 86_400,
            guideShape: Bool = false,
            mealProcessingSeconds: TimeInterval = 3,
            rangeEndExclusive: Bool = false,
            clock: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.mealProcessingSeconds = mealProcessingSeconds
            self.rangeEndExclusive = rangeEndExclusive
            self.timeZone = timeZone
            self.seedDay = seedDay ?? LocalDate.today(in: timeZone).description
            self.apiKey = apiKey
            self.users = users
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.guideShape = guideShape
            self.clock = clock
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
        let store = try FitIQStore(options: options)
        return try await SimulatorServer.start(
            kind: .fitiq,
            backend: FitIQBackend(store: store),
            control: SimulatorControl(),
            host: host,
            port: port,
            logger: logger
        )
    }
}
