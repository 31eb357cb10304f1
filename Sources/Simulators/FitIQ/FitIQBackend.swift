import Foundation
import Hummingbird
import Model

// MARK: - Routing

/// Who may call a route.
enum FitIQAccess: Sendable {
    /// `X-API-Key` only (login, refresh, register, the public food catalog).
    case apiKey
    /// `X-API-Key` plus `Authorization: Bearer <access token>`.
    case user
}

/// One authenticated API call as a handler sees it.
struct FitIQCall: Sendable {
    let request: SimRequest
    let params: [String: String]
    /// The caller's user id ("" on API-key-only routes).
    let userID: String
    /// Unix seconds at arrival.
    let now: Double
    let query: QueryItems

    var nowMicros: Int64 { FitIQFormat.nowMicros(now) }

    /// Go's `c.Query(name)`: the first value; an empty value counts as absent here.
    func query(_ name: String) -> String? {
        guard let value = query.items.first(where: { $0.0 == name })?.1, !value.isEmpty else { return nil }
        return value
    }
}

/// A Gin-like route table: exact method + path match (static segments before parameters), a
/// trailing-slash redirect when only the slash is in the way, otherwise 404 (no 405).
struct FitIQRouter: Sendable {
    typealias Handler = @Sendable (FitIQCall) -> Response

    struct Route: Sendable {
        let method: HTTPRequest.Method
        let parts: [Substring]
        let access: FitIQAccess
        let handler: Handler
    }

    enum Match {
        case found(Route, [String: String])
        case redirect(String)
        case notFound
    }

    private(set) var routes: [Route] = []

    /// `pattern` like `/api/v1/workouts/{id}`.
    mutating func add(
        _ method: HTTPRequest.Method, _ pattern: String, _ access: FitIQAccess, _ handler: @escaping Handler
    ) {
        routes.append(
            Route(
                method: method, parts: pattern.split(separator: "/", omittingEmptySubsequences: false), access: access,
                handler: handler))
    }

    private static func params(_ parts: [Substring], _ path: String) -> [String: String]? {
        let pieces = path.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == parts.count else { return nil }
        var params: [String: String] = [:]
        for (part, piece) in zip(parts, pieces) {
            if part.hasPrefix("{") && part.hasSuffix("}") {
                if piece.isEmpty { return nil }
                params[String(part.dropFirst().dropLast())] = String(piece)
            } else if part != piece {
                return nil
            }
        }
        return params
    }

    private func find(_ method: HTTPRequest.Method, _ path: String) -> (Route, [String: String])? {
        var best: (Route, [String: String], Int)?
        for route in routes where route.method == method {
            guard let params = Self.params(route.parts, path) else { continue }
            // Fewer parameters = more static segments = higher priority.
            if best == nil || params.count < best!.2 { best = (route, params, params.count) }
        }
        return best.map { ($0.0, $0.1) }
    }

    func match(_ method: HTTPRequest.Method, _ path: String) -> Match {
        if let (route, params) = find(method, path) { return .found(route, params) }
        if path.count > 1, path.hasSuffix("/") {
            let stripped = String(path.dropLast())
            if find(method, stripped) != nil { return .redirect(stripped) }
        }
        return .notFound
    }
}

// MARK: - Backend

/// The FitIQ API (Go, `/api/v1`, `{"data":…}` / `{"error":{"message":…}}`), see
/// ``FitIQSimulator`` for what is simulated.
struct FitIQBackend: SimulatorBackend {
    let store: FitIQStore
    private let router: FitIQRouter

    static let invalidAuthentication = "Invalid authentication"
    static let mealTypes = ["breakfast", "lunch", "dinner", "snack"]
    static let foodSources = ["custom", "barcode", "database"]

    init(store: FitIQStore) {
        self.store = store
        var r = FitIQRouter()
        let s = store
        r.add(.post, "/api/v1/auth/register", .apiKey) { Self.register(s, $0) }
        r.add(.post, "/api/v1/auth/login", .apiKey) { Self.login(s, $0) }
        r.add(.post, "/api/v1/auth/refresh", .apiKey) { Self.refresh(s, $0) }
        r.add(.get, "/api/v1/foods/search", .apiKey) { Self.searchFoods(s, $0) }
        r.add(.get, "/api/v1/foods/barcode/{barcode}", .apiKey) { Self.foodByBarcode(s, $0) }
        r.add(.get, "/api/v1/foods/{id}", .apiKey) { Self.getFood(s, $0) }
        r.add(.get, "/api/v1/food-logs", .user) { Self.listFoodLogs(s, $0) }
        r.add(.post, "/api/v1/food-logs", .user) { Self.createFoodLog(s, $0) }
        r.add(.get, "/api/v1/food-logs/summary", .user) { Self.summary(s, $0) }
        r.add(.delete, "/api/v1/food-logs/{id}", .user) { Self.deleteFoodLog(s, $0) }
        r.add(.get, "/api/v1/users/me/foods", .user) { Self.listUserFoods(s, $0) }
        r.add(.post, "/api/v1/meal-logs/natural", .user) { Self.createNaturalMealLog(s, $0) }
        r.add(.post, "/api/v1/meal-logs/batch", .user) { Self.createBatchMealLog(s, $0) }
        r.add(.get, "/api/v1/meal-logs", .user) { Self.listMealLogs(s, $0) }
        r.add(.get, "/api/v1/meal-logs/{id}", .user) { Self.getMealLog(s, $0) }
        r.add(.delete, "/api/v1/meal-logs/{id}", .user) { Self.deleteMealLog(s, $0) }
        r.add(.get, "/api/v1/workouts", .user) { Self.listWorkouts(s, $0) }
        r.add(.post, "/api/v1/workouts", .user) { Self.createWorkout(s, $0) }
        r.add(.get, "/api/v1/workouts/date-range", .user) { Self.workoutsInRange(s, $0) }
        r.add(.get, "/api/v1/workouts/activity/{type}", .user) { Self.workoutsByActivity(s, $0) }
        r.add(.get, "/api/v1/workouts/{id}", .user) { Self.getWorkout(s, $0) }
        r.add(.put, "/api/v1/workouts/{id}", .user) { Self.updateWorkout(s, $0) }
        r.add(.delete, "/api/v1/workouts/{id}", .user) { Self.deleteWorkout(s, $0) }
        r.add(.get, "/api/v1/sleep", .user) { Self.listSleep(s, $0) }
        r.add(.post, "/api/v1/sleep", .user) { Self.createSleep(s, $0) }
        router = r
    }

    func handle(_ request: SimRequest) async -> Response {
        let now = store.clock().timeIntervalSince1970
        // Probes are outside the API-key middleware.
        if request.method == .get, request.path == "/health" {
            return FitIQHTTP.json(.object(["status": .string("ok")]))
        }
        if request.method == .get, request.path == "/ready" {
            return FitIQHTTP.json(.object(["status": .string("ready")]))
        }
        switch router.match(request.method, request.path) {
        case .redirect(let path):
            return FitIQHTTP.redirect(request, to: path)
        case .notFound:
            // The API-key middleware is global, so it answers before the 404 handler.
            if let denied = checkAPIKey(request) { return denied }
            return FitIQHTTP.notFoundPage
        case .found(let route, let params):
            if let denied = checkAPIKey(request) { return denied }
            var userID = ""
            if route.access == .user {
                guard let token = Self.bearerToken(request),
                    let id = store.withState({ $0.authenticate(token, now: now) })
                else {
                    return FitIQHTTP.error(Self.invalidAuthentication, status: 401)
                }
                userID = id
            }
            let call = FitIQCall(
                request: request, params: params, userID: userID, now: now, query: QueryItems(raw: request.rawQuery))
            return route.handler(call)
        }
    }

    func faultResponse(status: Int) -> Response {
        FitIQHTTP.error("simulated failure", status: status)
    }

    private func checkAPIKey(_ request: SimRequest) -> Response? {
        guard let key = request.headers.first(where: { $0.name.canonicalName == "x-api-key" })?.value, !key.isEmpty
        else {
            return FitIQHTTP.error("API key is required", status: 401)
        }
        guard key == store.apiKey else { return FitIQHTTP.error("Invalid API key", status: 401) }
        return nil
    }

    /// The token of `Authorization: Bearer <token>`, or nil.
    static func bearerToken(_ request: SimRequest) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        let token = header.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    // MARK: - Control routes

    var controlRoutes: [String] {
        ["GET /_sim/auth", "POST /_sim/tokens/expire", "GET /_sim/options", "POST /_sim/options", "POST /_sim/reset"]
    }

    func handleControl(_ request: SimRequest) async -> Response? {
        let now = store.clock().timeIntervalSince1970
        switch (request.method, request.path) {
        case (.get, "/_sim/auth"):
            return .json(authJSON)
        case (.post, "/_sim/tokens/expire"):
            let count = store.withState { $0.expireAccessTokens(now: now) }
            return .json(.object(["expired": .int(count)]))
        case (.get, "/_sim/options"):
            return .json(optionsJSON)
        case (.post, "/_sim/options"), (.put, "/_sim/options"):
            guard let body = JSONValue.parse(request.body.readableBytesView), case .object(let o) = body else {
                return .simError("expected a JSON object like {\"guide_shape\":true}")
            }
            var guideShape: Bool?
            var rangeEndExclusive: Bool?
            var accessLifetime: Double?
            var refreshLifetime: Double?
            var mealProcessing: Double?
            if let value = o["guide_shape"] {
                guard case .bool(let b) = value else { return .simError("guide_shape must be a boolean") }
                guideShape = b
            }
            if let value = o["range_end_exclusive"] {
                guard case .bool(let b) = value else { return .simError("range_end_exclusive must be a boolean") }
                rangeEndExclusive = b
            }
            if let value = o["meal_processing_seconds"] {
                guard let seconds = value.numberValue, seconds >= 0, seconds <= 3600 else {
                    return .simError("meal_processing_seconds must be 0 to 3600")
                }
                mealProcessing = seconds
            }
            for (key, target) in [("access_token_lifetime", 0), ("refresh_token_lifetime", 1)] {
                guard let value = o[key] else { continue }
                let seconds: Double
                switch value {
                case .int(let i): seconds = Double(i)
                case .double(let d): seconds = d
                default: return .simError("\(key) must be a number of seconds")
                }
                guard seconds > 0 else { return .simError("\(key) must be positive") }
                if target == 0 { accessLifetime = seconds } else { refreshLifetime = seconds }
            }
            store.withState { s in
                if let guideShape { s.guideShape = guideShape }
                if let rangeEndExclusive { s.rangeEndExclusive = rangeEndExclusive }
                if let mealProcessing { s.mealProcessingSeconds = mealProcessing }
                if let accessLifetime { s.accessTokenLifetime = accessLifetime }
                if let refreshLifetime { s.refreshTokenLifetime = refreshLifetime }
            }
            return .json(optionsJSON)
        case (.post, "/_sim/reset"):
            store.reseed()
            let counts = store.withState { s in
                JSONValue.object([
                    "users": .int(s.users.count),
                    "food_logs": .int(s.foodLogs.count),
                    "workouts": .int(s.workouts.count),
                    "sleep_sessions": .int(s.sleepSessions.count),
                    "meal_logs": .int(s.mealLogs.count),
                ])
            }
            return .json(counts)
        default:
            return nil
        }
    }

    private var authJSON: JSONValue {
        store.withState { s in
            .object([
                "logins": .int(s.logins), "refreshes": .int(s.refreshes),
                "rejected_refreshes": .int(s.rejectedRefreshes),
            ])
        }
    }

    private var optionsJSON: JSONValue {
        let (guide, access, refresh, exclusive, processing) = store.withState {
            (
                $0.guideShape, $0.accessTokenLifetime, $0.refreshTokenLifetime, $0.rangeEndExclusive,
                $0.mealProcessingSeconds
            )
        }
        return .object([
            "guide_shape": .bool(guide),
            "range_end_exclusive": .bool(exclusive),
            "meal_processing_seconds": .double(processing),
            "access_token_lifetime": .double(access),
            "refresh_token_lifetime": .double(refresh),
            "seed_day": .string(store.seedDay),
            "time_zone": .string(store.timeZone.identifier),
        ])
    }
}

// MARK: - Auth handlers

extension FitIQBackend {
    static let invalidBody = "invalid request body"

    static func tokenPair(_ access: String, _ refresh: String) -> JSONValue {
        .object(["access_token": .string(access), "refresh_token": .string(refresh)])
    }

    static func login(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard var body = FitIQBody(call.request) else { return FitIQHTTP.error(invalidBody, status: 400) }
        let email = body.string("email")
        let password = body.string("password")
        if body.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
        guard let email, let password, !email.isEmpty, !password.isEmpty else {
            return FitIQHTTP.error("email and password are required", status: 400)
        }
        guard let pair = store.withState({ $0.login(email: email, password: password, now: call.now) }) else {
            return FitIQHTTP.error("invalid email or password", status: 401)
        }
        return FitIQHTTP.data(tokenPair(pair.access, pair.refresh))
    }

    static func refresh(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard var body = FitIQBody(call.request) else { return FitIQHTTP.error(invalidBody, status: 400) }
        let token = body.string("refresh_token")
        if body.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
        guard let token, !token.isEmpty else { return FitIQHTTP.error("refresh_token is required", status: 400) }
        switch store.withState({ $0.refresh(token, now: call.now) }) {
        case .ok(let access, let refresh): return FitIQHTTP.data(tokenPair(access, refresh))
        case .invalid: return FitIQHTTP.error("invalid refresh token", status: 401)
        case .revoked: return FitIQHTTP.error("refresh token has been revoked", status: 401)
        case .expired: return FitIQHTTP.error("refresh token has expired", status: 401)
        }
    }

    static func register(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard var body = FitIQBody(call.request) else { return FitIQHTTP.error(invalidBody, status: 400) }
        let email = body.string("email")?.trimmingCharacters(in: .whitespaces)
        let password = body.string("password")
        let name = body.string("name")?.trimmingCharacters(in: .whitespaces)
        let dob = body.string("date_of_birth")
        if body.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
        guard let email, let password, let name, let dob, !email.isEmpty, !password.isEmpty, !name.isEmpty, !dob.isEmpty
        else {
            return FitIQHTTP.error("email, password, name and date_of_birth are required", status: 400)
        }
        guard email.contains("@"), !email.hasPrefix("@"), !email.hasSuffix("@") else {
            return FitIQHTTP.error("invalid email format", status: 400)
        }
        guard password.count >= 8 else { return FitIQHTTP.error("password must be at least 8 characters", status: 400) }
        // date_of_birth: YYYY-MM-DD (preferred) or RFC 3339.
        let birthDay: Int
        if let day = LocalDate(dob)?.dayNumber {
            birthDay = day
        } else if let micros = FitIQFormat.parseRFC3339(dob) {
            birthDay = FitIQFormat.utcDay(micros)
        } else {
            return FitIQHTTP.error("invalid date_of_birth format, expected YYYY-MM-DD", status: 400)
        }
        let (by, bm, bd) = Civil.date(fromDays: birthDay)
        let (ty, tm, td) = Civil.date(fromDays: FitIQFormat.utcDay(call.nowMicros))
        let age = ty - by - ((tm, td) < (bm, bd) ? 1 : 0)
        guard age >= 13 else { return FitIQHTTP.error("user must be at least 13 years old", status: 400) }

        let result: JSONValue? = store.withState { s in
            guard s.user(email: email) == nil else { return nil }
            let user = FitIQUser(
                id: UUID().uuidString.lowercased(), email: email, password: password, name: name, dailyCalorieGoal: 0,
                dateOfBirth: LocalDate(dayNumber: birthDay).description, createdAt: call.nowMicros
            )
            s.users.append(user)
            s.nextFamily += 1
            let pair = s.issueTokens(for: user, family: s.nextFamily, now: call.now)
            return .object([
                "user_id": .string(user.id),
                "email": .string(user.email),
                "name": .string(user.name),
                "created_at": .string(FitIQFormat.time(user.createdAt)),
                "access_token": .string(pair.access),
                "refresh_token": .string(pair.refresh),
            ])
        }
        guard let result else { return FitIQHTTP.error("user with this email already exists", status: 409) }
        return FitIQHTTP.data(result, status: 201)
    }
}

// MARK: - Shared parameter parsing

extension FitIQBackend {
    /// `limit`/`offset` query parameters: integers, 1...100 and ≥ 0.
    static func paging(_ call: FitIQCall, defaultLimit: Int) -> Checked<(limit: Int, offset: Int), Response> {
        var limit = defaultLimit
        var offset = 0
        if let raw = call.query("limit") {
            guard let value = Int(raw) else { return .failure(FitIQHTTP.error("invalid limit parameter", status: 400)) }
            guard (1...100).contains(value) else {
                return .failure(FitIQHTTP.error("limit must be between 1 and 100", status: 400))
            }
            limit = value
        }
        if let raw = call.query("offset") {
            guard let value = Int(raw) else {
                return .failure(FitIQHTTP.error("invalid offset parameter", status: 400))
            }
            guard value >= 0 else { return .failure(FitIQHTTP.error("offset must be non-negative", status: 400)) }
            offset = value
        }
        return .success((limit, offset))
    }

    /// A page of `items` with `total` (or `totalKey`), `limit`, `offset` and `has_more`, under `key`.
    static func page(
        _ key: String, _ items: [JSONValue], limit: Int, offset: Int, extra: [(String, JSONValue)] = [],
        totalKey: String = "total"
    ) -> JSONValue {
        let slice = offset < items.count ? Array(items[offset..<min(items.count, offset + limit)]) : []
        var o = JSONObject(fields: [(key, .array(slice))])
        for (k, v) in extra { o.append(k, v) }
        o.append(totalKey, .int(items.count))
        o.append("limit", .int(limit))
        o.append("offset", .int(offset))
        o.append("has_more", .bool(offset + slice.count < items.count))
        return .object(o)
    }

    /// FitIQ's 400 for a body's `meal_type` that is not one of `mealTypes`.
    static var mealTypeRefused: Response {
        FitIQHTTP.error("meal_type must be one of: breakfast, lunch, dinner, snack", status: 400)
    }

    /// A body's `logged_at` (RFC 3339) in microseconds; the call's time when absent.
    static func loggedAt(_ raw: String?, _ call: FitIQCall) -> Checked<Int64, Response> {
        guard let raw else { return .success(call.nowMicros) }
        guard let parsed = FitIQFormat.parseRFC3339(raw) else {
            return .failure(FitIQHTTP.error("invalid logged_at format, expected RFC3339", status: 400))
        }
        return .success(parsed)
    }

    enum DeleteOutcome { case deleted, forbidden, missing }

    /// `DELETE` of one of the caller's rows (`what`: "food log", "meal log"): 204, 403 another
    /// user's, 404 none.
    static func deleteOwned<Row: FitIQOwnedRow>(
        _ rows: WritableKeyPath<FitIQState, [Row]>, what: String, _ store: FitIQStore, _ call: FitIQCall
    ) -> Response {
        let id = call.params["id"] ?? ""
        let outcome: DeleteOutcome = store.withState { s in
            guard let index = s[keyPath: rows].firstIndex(where: { $0.id == id }) else { return .missing }
            guard s[keyPath: rows][index].userID == call.userID else { return .forbidden }
            s[keyPath: rows].remove(at: index)
            return .deleted
        }
        switch outcome {
        case .deleted: return FitIQHTTP.noContent
        case .forbidden: return FitIQHTTP.error("you do not have permission to delete this \(what)", status: 403)
        case .missing: return FitIQHTTP.error("\(what) not found", status: 404)
        }
    }

    /// A `YYYY-MM-DD` query parameter as a UTC day; nil when absent.
    static func dayParameter(_ call: FitIQCall, _ name: String, label: String? = nil) -> Checked<Int?, Response> {
        guard let raw = call.query(name) else { return .success(nil) }
        guard let day = LocalDate(raw)?.dayNumber else {
            return .failure(FitIQHTTP.error("invalid \(label ?? name) format, expected YYYY-MM-DD", status: 400))
        }
        return .success(day)
    }
}

// MARK: - Foods

extension FitIQBackend {
    /// swagger: "Get food by ID (Public - API Key only)": with no user behind the call, the
    /// global library's foods only (the specification does not say whether it finds a user's own
    /// food; the simulator takes the reading that gives a client less). A user's own foods are
    /// read with `GET /api/v1/users/me/foods`.
    static func getFood(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let id = call.params["id"] ?? ""
        guard let food = store.withState({ $0.food(id: id) }), food.userID == nil else {
            return FitIQHTTP.error("food not found", status: 404)
        }
        return FitIQHTTP.data(food.json)
    }

    /// swagger: public, API key only (no user), so the global library's foods only; any string
    /// is looked up (no format check), 404 `food not found` otherwise.
    static func foodByBarcode(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let barcode = call.params["barcode"] ?? ""
        guard let food = store.withState({ $0.foods.first { $0.userID == nil && $0.barcode == barcode } }) else {
            return FitIQHTTP.error("food not found", status: 404)
        }
        return FitIQHTTP.data(food.json)
    }

    /// swagger: "Search for foods by name in the global food library" — the global catalog only,
    /// by case-insensitive substring of the name; `q` required, `limit` 1–100 (default 20);
    /// `{"foods","total","limit"}`.
    static func searchFoods(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard let q = call.query("q")?.trimmingCharacters(in: .whitespaces), !q.isEmpty else {
            return FitIQHTTP.error("search query 'q' is required", status: 400)
        }
        var limit = 20
        if let raw = call.query("limit") {
            guard let value = Int(raw), (1...100).contains(value) else {
                return FitIQHTTP.error("limit must be between 1 and 100", status: 400)
            }
            limit = value
        }
        let needle = q.lowercased()
        let foods = store.withState { s in
            s.foods.filter {
                $0.userID == nil && $0.name.lowercased().contains(needle)
            }
        }
        let shown = foods.prefix(limit).map(\.json)
        return FitIQHTTP.data(
            .object(["foods": .array(Array(shown)), "total": .int(foods.count), "limit": .int(limit)]))
    }
}

// MARK: - Food logs

extension FitIQBackend {
    /// Logs of the caller on UTC days `start...end` (either bound optional; the end day left out
    /// with `range_end_exclusive`), newest first.
    static func listFoodLogs(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let start: Int?
        let end: Int?
        switch dayParameter(call, "start_date") {
        case .failure(let r): return r
        case .success(let d): start = d
        }
        switch dayParameter(call, "end_date") {
        case .failure(let r): return r
        case .success(let d): end = d
        }
        let meal = call.query("meal_type")
        if let meal, !mealTypes.contains(meal) {
            return FitIQHTTP.error("invalid meal_type, must be one of: breakfast, lunch, dinner, snack", status: 400)
        }
        let logs = store.withState { s in
            s.foodLogs.filter { log in
                log.userID == call.userID && s.dayInRange(FitIQFormat.utcDay(log.loggedAt), start: start, end: end)
                    && (meal == nil || log.mealType == meal)
            }
        }
        let sorted = logs.sorted { ($0.loggedAt, $0.sequence) > ($1.loggedAt, $1.sequence) }
        return FitIQHTTP.data(.object(["logs": .array(sorted.map(\.json)), "total": .int(sorted.count)]))
    }

    static func createFoodLog(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard var body = FitIQBody(call.request) else { return FitIQHTTP.error(invalidBody, status: 400) }
        let foodID = body.string("food_id")
        let source = body.string("food_source")
        let meal = body.string("meal_type")
        let servings = body.number("servings")
        let loggedAtRaw = body.string("logged_at")
        let notes = body.string("notes")
        if body.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
        guard let foodID, !foodID.isEmpty else { return FitIQHTTP.error("food_id is required", status: 400) }
        guard FitIQFormat.isUUID(foodID) else { return FitIQHTTP.error("invalid food_id format", status: 400) }
        guard let source, foodSources.contains(source) else {
            return FitIQHTTP.error("food_source must be one of: custom, barcode, database", status: 400)
        }
        guard let meal, mealTypes.contains(meal) else { return mealTypeRefused }
        guard let servings, servings >= 0.01 else {
            return FitIQHTTP.error("servings must be at least 0.01", status: 400)
        }
        let loggedAt: Int64
        switch Self.loggedAt(loggedAtRaw, call) {
        case .failure(let r): return r
        case .success(let t): loggedAt = t
        }
        if let notes, notes.count > 1000 {
            return FitIQHTTP.error("notes must be at most 1000 characters", status: 400)
        }

        let created: FitIQFoodLog? = store.withState { s in
            // The global catalog or the caller's own custom foods.
            guard let food = s.food(id: foodID.lowercased()), food.userID == nil || food.userID == call.userID else {
                return nil
            }
            var log = FitIQFoodLog(
                id: UUID().uuidString.lowercased(), userID: call.userID, foodID: food.id, foodSource: source,
                mealType: meal,
                servings: servings, loggedAt: loggedAt, notes: notes, createdAt: call.nowMicros,
                updatedAt: call.nowMicros
            )
            log.sequence = s.sequence()
            s.foodLogs.append(log)
            return log
        }
        guard let created else { return FitIQHTTP.error("food not found", status: 404) }
        return FitIQHTTP.data(created.json, status: 201)
    }

    static func deleteFoodLog(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        deleteOwned(\.foodLogs, what: "food log", store, call)
    }

    /// DailyNutritionSummaryResponse for one UTC day (default: today, UTC); in the guide's camelCase
    /// `success` envelope when `guide_shape` is on.
    static func summary(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let day: Int
        if let raw = call.query("date") {
            guard let parsed = LocalDate(raw)?.dayNumber else {
                return FitIQHTTP.error("invalid date format, expected YYYY-MM-DD", status: 400)
            }
            day = parsed
        } else {
            day = FitIQFormat.utcDay(call.nowMicros)
        }
        struct Totals {
            var calories = 0.0, protein = 0.0, carbs = 0.0, fat = 0.0, fiber = 0.0, count = 0
            mutating func add(_ food: FitIQFood, _ servings: Double) {
                calories += Double(food.calories) * servings
                protein += food.proteinG * servings
                carbs += food.carbsG * servings
                fat += food.fatG * servings
                fiber += (food.fiberG ?? 0) * servings
                count += 1
            }
        }
        let (items, goal, guideShape): ([(String, FitIQFood, Double)], Int, Bool) = store.withState { s in
            let items = s.foodLogs.compactMap { log -> (String, FitIQFood, Double)? in
                guard log.userID == call.userID, FitIQFormat.utcDay(log.loggedAt) == day,
                    let food = s.food(id: log.foodID)
                else {
                    return nil
                }
                return (log.mealType, food, log.servings)
            }
            return (items, s.user(id: call.userID)?.dailyCalorieGoal ?? 0, s.guideShape)
        }
        var total = Totals()
        var perMeal: [String: Totals] = [:]
        for (meal, food, servings) in items {
            total.add(food, servings)
            perMeal[meal, default: Totals()].add(food, servings)
        }
        let calories = Int(total.calories.rounded())
        let n = FitIQFormat.number
        let r = FitIQFormat.round1
        if guideShape {
            var breakdown = JSONObject(fields: [])
            for meal in mealTypes {
                guard let t = perMeal[meal] else { continue }
                breakdown.append(
                    meal,
                    .object([
                        "calories": n(r(t.calories)), "proteinG": n(r(t.protein)), "carbsG": n(r(t.carbs)),
                        "fatG": n(r(t.fat)),
                        "itemCount": .int(t.count),
                    ])
                )
            }
            let data: JSONValue = .object([
                "date": .string(LocalDate(dayNumber: day).description),
                "totalCalories": n(r(total.calories)),
                "totalProteinG": n(r(total.protein)),
                "totalCarbsG": n(r(total.carbs)),
                "totalFatG": n(r(total.fat)),
                "totalFiberG": n(r(total.fiber)),
                "mealBreakdown": .object(breakdown),
            ])
            return FitIQHTTP.json(.object(["success": .bool(true), "data": data, "error": .null]))
        }
        return FitIQHTTP.data(
            .object([
                "date": .string(LocalDate(dayNumber: day).description),
                "total_calories": .int(calories),
                "total_protein_g": n(r(total.protein)),
                "total_carbs_g": n(r(total.carbs)),
                "total_fat_g": n(r(total.fat)),
                "log_count": .int(total.count),
                "breakfast_logs": .int(perMeal["breakfast"]?.count ?? 0),
                "lunch_logs": .int(perMeal["lunch"]?.count ?? 0),
                "dinner_logs": .int(perMeal["dinner"]?.count ?? 0),
                "snack_logs": .int(perMeal["snack"]?.count ?? 0),
                "calorie_goal": .int(goal),
                // goal - consumed, not clamped; 0 when no goal is set.
                "remaining_cals": .int(goal > 0 ? goal - calories : 0),
            ])
        )
    }
}

// MARK: - Workouts

extension FitIQBackend {
    static func workoutPage(
        _ store: FitIQStore, _ call: FitIQCall, where filter: @escaping @Sendable (FitIQWorkout) -> Bool
    ) -> Response {
        let paging: (limit: Int, offset: Int)
        switch Self.paging(call, defaultLimit: 20) {
        case .failure(let r): return r
        case .success(let p): paging = p
        }
        let workouts = store.withState { s in s.workouts.filter { $0.userID == call.userID && filter($0) } }
            .sorted { ($0.startedAt, $0.sequence) > ($1.startedAt, $1.sequence) }
        return FitIQHTTP.data(page("workouts", workouts.map(\.json), limit: paging.limit, offset: paging.offset))
    }

    static func listWorkouts(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        workoutPage(store, call) { _ in true }
    }

    /// `start_date`/`end_date` are required RFC 3339 datetimes (not days): `started_at` within them.
    static func workoutsInRange(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard let rawStart = call.query("start_date"), let rawEnd = call.query("end_date") else {
            return FitIQHTTP.error("start_date and end_date are required", status: 400)
        }
        guard let start = FitIQFormat.parseRFC3339(rawStart) else {
            return FitIQHTTP.error("invalid start_date format, expected RFC3339", status: 400)
        }
        guard let end = FitIQFormat.parseRFC3339(rawEnd) else {
            return FitIQHTTP.error("invalid end_date format, expected RFC3339", status: 400)
        }
        return workoutPage(store, call) { $0.startedAt >= start && $0.startedAt <= end }
    }

    static func workoutsByActivity(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let type = call.params["type"] ?? ""
        return workoutPage(store, call) { $0.activityType == type }
    }

    static func getWorkout(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let id = call.params["id"] ?? ""
        guard let workout = store.withState({ s in s.workouts.first { $0.id == id && $0.userID == call.userID } })
        else {
            return FitIQHTTP.error("workout not found", status: 404)
        }
        return FitIQHTTP.data(workout.json)
    }

    static func deleteWorkout(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let id = call.params["id"] ?? ""
        let deleted = store.withState { s in
            guard let index = s.workouts.firstIndex(where: { $0.id == id && $0.userID == call.userID }) else {
                return false
            }
            s.workouts.remove(at: index)
            return true
        }
        return deleted ? FitIQHTTP.noContent : FitIQHTTP.error("workout not found", status: 404)
    }

    /// Validated fields of a workout body; only keys that were sent.
    struct WorkoutFields: Sendable {
        var activityType: String?
        var title: String??
        var notes: String??
        var startedAt: Int64?
        var endedAt: Int64??
        var durationMinutes: Int??
        var caloriesBurned: Int??
        var distanceMeters: Double??
        var intensity: Int??
    }

    static func workoutFields(_ request: SimRequest) -> Checked<WorkoutFields, Response> {
        guard var body = FitIQBody(request) else { return .failure(FitIQHTTP.error(invalidBody, status: 400)) }
        var f = WorkoutFields()
        f.activityType = body.string("activity_type")
        if body.has("title") { f.title = .some(body.string("title")) }
        if body.has("notes") { f.notes = .some(body.string("notes")) }
        let started = body.string("started_at")
        let ended = body.has("ended_at") ? body.string("ended_at") : nil
        if body.has("duration_minutes") { f.durationMinutes = .some(body.int("duration_minutes")) }
        if body.has("calories_burned") { f.caloriesBurned = .some(body.int("calories_burned")) }
        if body.has("distance_meters") { f.distanceMeters = .some(body.number("distance_meters")) }
        if body.has("intensity") { f.intensity = .some(body.int("intensity")) }
        if body.typeError { return .failure(FitIQHTTP.error(invalidBody, status: 400)) }
        if let type = f.activityType, type.isEmpty || type.count > 100 {
            return .failure(FitIQHTTP.error("activity_type must be between 1 and 100 characters", status: 400))
        }
        if let title = f.title ?? nil, title.count > 255 {
            return .failure(FitIQHTTP.error("title must be at most 255 characters", status: 400))
        }
        if let notes = f.notes ?? nil, notes.count > 2000 {
            return .failure(FitIQHTTP.error("notes must be at most 2000 characters", status: 400))
        }
        if let started {
            guard let value = FitIQFormat.parseRFC3339(started) else {
                return .failure(FitIQHTTP.error("invalid started_at format, expected RFC3339", status: 400))
            }
            f.startedAt = value
        }
        if body.has("ended_at") {
            if let ended {
                guard let value = FitIQFormat.parseRFC3339(ended) else {
                    return .failure(FitIQHTTP.error("invalid ended_at format, expected RFC3339", status: 400))
                }
                f.endedAt = .some(value)
            } else {
                f.endedAt = .some(nil)
            }
        }
        if let v = f.durationMinutes ?? nil, v < 0 {
            return .failure(FitIQHTTP.error("duration_minutes must be non-negative", status: 400))
        }
        if let v = f.caloriesBurned ?? nil, v < 0 {
            return .failure(FitIQHTTP.error("calories_burned must be non-negative", status: 400))
        }
        if let v = f.distanceMeters ?? nil, v < 0 {
            return .failure(FitIQHTTP.error("distance_meters must be non-negative", status: 400))
        }
        if let v = f.intensity ?? nil, !(1...10).contains(v) {
            return .failure(FitIQHTTP.error("intensity must be between 1 and 10", status: 400))
        }
        return .success(f)
    }

    static func apply(_ f: WorkoutFields, to w: inout FitIQWorkout) {
        if let v = f.activityType { w.activityType = v }
        if let v = f.title { w.title = v }
        if let v = f.notes { w.notes = v }
        if let v = f.startedAt { w.startedAt = v }
        if let v = f.endedAt { w.endedAt = v }
        if let v = f.durationMinutes { w.durationMinutes = v }
        if let v = f.caloriesBurned { w.caloriesBurned = v }
        if let v = f.distanceMeters { w.distanceMeters = v }
        if let v = f.intensity { w.intensity = v }
    }

    static func createWorkout(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let f: WorkoutFields
        switch workoutFields(call.request) {
        case .failure(let r): return r
        case .success(let v): f = v
        }
        guard f.activityType != nil else { return FitIQHTTP.error("activity_type is required", status: 400) }
        guard let started = f.startedAt else { return FitIQHTTP.error("started_at is required", status: 400) }
        if let ended = f.endedAt ?? nil, ended < started {
            return FitIQHTTP.error("ended_at must be after started_at", status: 400)
        }
        let workout: FitIQWorkout = store.withState { s in
            var w = FitIQWorkout(
                id: UUID().uuidString.lowercased(), userID: call.userID, activityType: "", startedAt: started,
                createdAt: call.nowMicros, updatedAt: call.nowMicros
            )
            apply(f, to: &w)
            w.sequence = s.sequence()
            s.workouts.append(w)
            return w
        }
        return FitIQHTTP.data(workout.json, status: 201)
    }

    static func updateWorkout(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let f: WorkoutFields
        switch workoutFields(call.request) {
        case .failure(let r): return r
        case .success(let v): f = v
        }
        let id = call.params["id"] ?? ""
        enum Outcome {
            case ok(FitIQWorkout)
            case missing, badRange
        }
        let outcome: Outcome = store.withState { s in
            guard let index = s.workouts.firstIndex(where: { $0.id == id && $0.userID == call.userID }) else {
                return .missing
            }
            var w = s.workouts[index]
            apply(f, to: &w)
            if let ended = w.endedAt, ended < w.startedAt { return .badRange }
            w.updatedAt = call.nowMicros
            s.workouts[index] = w
            return .ok(w)
        }
        switch outcome {
        case .ok(let w): return FitIQHTTP.data(w.json)
        case .missing: return FitIQHTTP.error("workout not found", status: 404)
        case .badRange: return FitIQHTTP.error("ended_at must be after started_at", status: 400)
        }
    }
}

// MARK: - Sleep

extension FitIQBackend {
    /// Sessions whose `start_time` falls on UTC days `from...to` (default: the last 30 days up to
    /// today, UTC), newest first, with averages over all matches (null when none).
    static func listSleep(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        let today = FitIQFormat.utcDay(call.nowMicros)
        var from = today - 30
        var to = today
        switch dayParameter(call, "from", label: "from date") {
        case .failure(let r): return r
        case .success(let d): if let d { from = d }
        }
        switch dayParameter(call, "to", label: "to date") {
        case .failure(let r): return r
        case .success(let d): if let d { to = d }
        }
        let paging: (limit: Int, offset: Int)
        switch Self.paging(call, defaultLimit: 30) {
        case .failure(let r): return r
        case .success(let p): paging = p
        }
        let sessions = store.withState { s in
            s.sleepSessions.filter { session in
                session.userID == call.userID
                    && s.dayInRange(FitIQFormat.utcDay(session.startTime), start: from, end: to)
            }
        }.sorted { ($0.startTime, $0.sequence) > ($1.startTime, $1.sequence) }
        var averages: JSONValue = .null
        if !sessions.isEmpty {
            let count = sessions.count
            averages = .object([
                "avg_time_in_bed_minutes": .int(sessions.map(\.timeInBedMinutes).reduce(0, +) / count),
                "avg_total_sleep_minutes": .int(sessions.map(\.totalSleepMinutes).reduce(0, +) / count),
                "avg_sleep_efficiency_percentage": FitIQFormat.number(
                    sessions.map(\.sleepEfficiency).reduce(0, +) / Double(count)),
            ])
        }
        return FitIQHTTP.data(
            page(
                "sessions", sessions.map(\.json), limit: paging.limit, offset: paging.offset,
                extra: [("averages", averages)])
        )
    }

    static let sleepStages = ["awake", "asleep", "core", "deep", "rem", "in_bed"]

    /// Creates a session (201), or answers 200 with the caller's existing session of the same `source_id`.
    static func createSleep(_ store: FitIQStore, _ call: FitIQCall) -> Response {
        guard var body = FitIQBody(call.request) else { return FitIQHTTP.error(invalidBody, status: 400) }
        let rawStart = body.string("start_time")
        let rawEnd = body.string("end_time")
        let rawStages = body.array("stages")
        let source = body.string("source")
        let sourceID = body.string("source_id")
        let notes = body.string("notes")
        if body.typeError { return FitIQHTTP.error(invalidBody, status: 400) }
        guard let rawStart, let rawEnd else {
            return FitIQHTTP.error("start_time and end_time are required", status: 400)
        }
        guard let start = FitIQFormat.parseRFC3339(rawStart) else {
            return FitIQHTTP.error("invalid start_time format, expected RFC3339", status: 400)
        }
        guard let end = FitIQFormat.parseRFC3339(rawEnd) else {
            return FitIQHTTP.error("invalid end_time format, expected RFC3339", status: 400)
        }
        guard end > start else { return FitIQHTTP.error("end_time must be after start_time", status: 400) }

        var stages: [(stage: String, start: Int64, end: Int64)] = []
        for item in rawStages ?? [] {
            guard case .object(let o) = item, let stage = o["stage"]?.stringValue, let s = o["start_time"]?.stringValue,
                let e = o["end_time"]?.stringValue
            else { return FitIQHTTP.error("each stage requires stage, start_time and end_time", status: 400) }
            guard sleepStages.contains(stage) else {
                return FitIQHTTP.error(
                    "invalid sleep stage '\(stage)', must be one of: awake, asleep, core, deep, rem, in_bed",
                    status: 400)
            }
            guard let ss = FitIQFormat.parseRFC3339(s), let ee = FitIQFormat.parseRFC3339(e) else {
                return FitIQHTTP.error("invalid stage time format, expected RFC3339", status: 400)
            }
            guard ee > ss else { return FitIQHTTP.error("stage end_time must be after start_time", status: 400) }
            guard ss >= start, ee <= end else {
                return FitIQHTTP.error("sleep stages must be within the session bounds", status: 400)
            }
            stages.append((stage, ss, ee))
        }
        // Stages may come unsorted (v0.27.1); they must not overlap once sorted.
        stages.sort { $0.start < $1.start }
        for (a, b) in zip(stages, stages.dropFirst()) where b.start < a.end {
            return FitIQHTTP.error("sleep stages must not overlap", status: 400)
        }
        let minute = 60 * Civil.microsPerSecond
        let inBed = Int((end - start) / minute)
        var minutes: [String: Int] = [:]
        for stage in stages { minutes[stage.stage, default: 0] += Int((stage.end - stage.start) / minute) }
        let asleep = (minutes["asleep"] ?? 0) + (minutes["core"] ?? 0) + (minutes["deep"] ?? 0) + (minutes["rem"] ?? 0)
        let total = stages.isEmpty ? inBed : asleep

        let (session, created): (FitIQSleepSession, Bool) = store.withState { s in
            if let sourceID,
                let existing = s.sleepSessions.first(where: { $0.userID == call.userID && $0.sourceID == sourceID })
            {
                return (existing, false)
            }
            var session = FitIQSleepSession(
                id: UUID().uuidString.lowercased(), userID: call.userID, startTime: start, endTime: end,
                timeInBedMinutes: inBed,
                totalSleepMinutes: total, sleepEfficiency: FitIQSleepSession.efficiency(total: total, inBed: inBed),
                awakeMinutes: minutes["awake"] ?? 0, remMinutes: minutes["rem"] ?? 0, coreMinutes: minutes["core"] ?? 0,
                deepMinutes: minutes["deep"] ?? 0, source: source ?? "manual", sourceID: sourceID, notes: notes,
                createdAt: call.nowMicros, updatedAt: call.nowMicros
            )
            session.sequence = s.sequence()
            s.sleepSessions.append(session)
            return (session, true)
        }
        return FitIQHTTP.data(session.json, status: created ? 201 : 200)
    }
}
