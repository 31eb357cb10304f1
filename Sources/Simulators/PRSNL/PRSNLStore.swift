import Foundation
import Model
import Synchronization

/// One row of PRSNL's `items` table (with its tags joined in).
struct PRSNLItem: Sendable, Equatable {
    var id: String
    var userID: String
    var title: String
    var url: String?
    var summary: String?
    /// `processed_content`: what `GET /api/items/{id}` shows as `content` (nil until processed).
    var content: String?
    var platform: String?
    var type: String
    var category: String?
    var contentType: String
    var thumbnailURL: String?
    var duration: Int?
    var filePath: String? = nil
    /// completed, bookmark, pending, failed or processed (all shown on the timeline).
    var status: String
    /// Microseconds since 1970, UTC.
    var createdAt: Int64
    var updatedAt: Int64?
    var tags: [String]
    var metadata: JSONObject
    var contentFingerprint: String?
    /// Insertion order, a stable tie-breaker.
    var sequence: Int

    var permalink: String { "/articles/\(id)" }

    /// Pydantic's rendering of an aware UTC datetime (`…Z`, fraction only when non-zero).
    static func zulu(_ micros: Int64) -> String { Civil.isoString(micros) + "Z" }
    /// Python's `datetime.isoformat()` of an aware UTC datetime (`…+00:00`).
    static func pythonISO(_ micros: Int64) -> String { Civil.isoString(micros) + "+00:00" }

    private static func opt(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }

    /// `TimelineItem`, in the model's field order.
    var timelineJSON: JSONValue {
        .object([
            "id": .string(id),
            "title": .string(title),
            "url": Self.opt(url),
            "summary": Self.opt(summary),
            "platform": Self.opt(platform),
            "type": .string(type),
            "category": Self.opt(category),
            "thumbnail_url": Self.opt(thumbnailURL),
            "duration": duration.map(JSONValue.int) ?? .null,
            "file_path": Self.opt(filePath),
            "status": .string(status),
            "createdAt": .string(Self.zulu(createdAt)),
            "updatedAt": updatedAt.map { .string(Self.zulu($0)) } ?? .null,
            "tags": .array(tags.map(JSONValue.string)),
            "permalink": .string(permalink),
        ])
    }

    /// `GET /api/items/{id}`: snake_case, isoformat datetimes, `status` always "completed".
    var detailJSON: JSONValue {
        .object([
            "id": .string(id),
            "title": .string(title),
            "url": Self.opt(url),
            "content": Self.opt(content),
            "summary": Self.opt(summary),
            "type": .string(type),
            "category": Self.opt(category),
            "content_type": .string(contentType),
            "created_at": .string(Self.pythonISO(createdAt)),
            "updated_at": updatedAt.map { .string(Self.pythonISO($0)) } ?? .null,
            "tags": .array(tags.map(JSONValue.string)),
            "status": .string("completed"),
            "access_count": .int(0),
            "accessed_at": .string(Self.pythonISO(createdAt)),
            "thumbnail_url": Self.opt(thumbnailURL),
            "platform": Self.opt(platform),
            "duration": duration.map(JSONValue.int) ?? .null,
            "file_path": Self.opt(filePath),
            "transcription": .null,
            "transcript": .null,
            "has_transcript": .bool(false),
            "learning_objectives": .array([]),
            "chapters": .array([]),
            "key_moments": .array([]),
            "key_topics": .array([]),
            "metadata": .object(metadata),
            "permalink": .string(permalink),
        ])
    }
}

/// A row of `users`.
struct PRSNLUser: Sendable, Equatable {
    var id: String
    var email: String
    /// nil: cannot log in.
    var password: String?
    var firstName: String
    var lastName: String
    var isVerified: Bool
    var lastLoginAt: Int64? = nil

    var name: String { "\(firstName) \(lastName)" }
}

/// Who a request acts as.
enum PRSNLScope: Sendable, Equatable {
    /// No credentials on an optional-auth route: every user's rows.
    case everyone
    case user(String)
}

/// The simulator's in-memory database, sessions, rate-limit windows and counters.
final class PRSNLStore: Sendable {
    struct Limits: Sendable, Equatable {
        var capture: Int?
        var search: Int?
    }

    struct AuthCounts: Sendable {
        var logins = 0
        var failedLogins = 0
        var refreshes = 0
        var failedRefreshes = 0
    }

    private struct State {
        var items: [String: PRSNLItem] = [:]
        var users: [String: PRSNLUser] = [:]
        var nextSequence = 0
        /// Active refresh sessions: refresh-token jti → user id.
        var sessions: [String: String] = [:]
        /// jtis of every access token handed out by login/refresh.
        var issuedAccess: Set<String> = []
        /// jtis forced to count as expired by `/_sim/tokens/expire`.
        var expired: Set<String> = []
        var counts = AuthCounts()
        var limits: Limits
        /// Set by `/_sim/options` `search_error`: the service's search fails inside, as when
        /// its database query raises, and it answers 200 `{"results": [], "error": …}`.
        var searchError: String?
        /// Fixed windows per limited route: start and hits.
        var windows: [String: (start: Date, hits: Int)] = [:]
    }

    let options: PRSNLSimulator.Options
    private let state: Mutex<State>

    init(options: PRSNLSimulator.Options) throws {
        guard Civil.parseDay(options.seedDay) != nil else { throw SimulatorError.invalidSeedDay(options.seedDay) }
        self.options = options
        self.state = Mutex(
            State(limits: Limits(capture: options.rateLimitPerMinute, search: options.searchRateLimitPerMinute)))
        reset()
    }

    /// Reloads the seed and forgets sessions, counters and rate-limit windows.
    func reset() {
        let seeded = PRSNLSeed.items(seedDay: options.seedDay, timeZone: options.timeZone)
        var demo = PRSNLSeed.demoUser
        demo.email = options.email
        demo.password = options.password
        state.withLock { s in
            s = State(limits: Limits(capture: options.rateLimitPerMinute, search: options.searchRateLimitPerMinute))
            s.users = [demo.id: demo, PRSNLSeed.testUser.id: PRSNLSeed.testUser]
            for item in seeded {
                s.items[item.id] = item
                s.nextSequence = max(s.nextSequence, item.sequence + 1)
            }
        }
    }

    static func nowMicros(_ date: Date = Date()) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
    }

    // MARK: - Items

    /// Timeline rows (`timeline.py`): status completed/bookmark/pending/failed/processed,
    /// `created_at < before`, `ORDER BY created_at DESC` with no tie-break: items sharing a
    /// `created_at` (a bulk import) come in an order the query does not fix — here by id, as
    /// arbitrary as a random UUID, never the order they were saved in — and a page that ends inside
    /// such a group loses the rest of it to the next page's `created_at <` (PRSNL's bug, kept).
    func timeline(scope: PRSNLScope, before: Int64?, limit: Int) -> [PRSNLItem] {
        state.withLock { s in
            s.items.values
                .filter { ["completed", "bookmark", "pending", "failed", "processed"].contains($0.status) }
                .filter { if case .user(let id) = scope { return $0.userID == id } else { return true } }
                .filter { before == nil || $0.createdAt < before! }
                .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
                .prefix(limit)
                .map { $0 }
        }
    }

    func item(_ id: String) -> PRSNLItem? {
        state.withLock { $0.items[id] }
    }

    func allItems() -> [PRSNLItem] {
        state.withLock { Array($0.items.values) }
    }

    /// A user's items with `url` (the duplicate check).
    func existing(url: String, userID: String) -> PRSNLItem? {
        state.withLock { s in
            s.items.values.filter { $0.url == url && $0.userID == userID }.min { $0.sequence < $1.sequence }
        }
    }

    func insert(_ item: PRSNLItem) {
        state.withLock { s in
            var item = item
            item.sequence = s.nextSequence
            s.nextSequence += 1
            s.items[item.id] = item
        }
    }

    /// `[(name, count)]` for one user, by count descending then name.
    func tags(userID: String) -> [(String, Int)] {
        let counts = state.withLock { s in
            s.items.values.filter { $0.userID == userID }.reduce(into: [String: Int]()) { counts, item in
                for tag in Set(item.tags) { counts[tag, default: 0] += 1 }
            }
        }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The user's ten most recently used tags (by their newest item).
    func recentTags(userID: String) -> [String] {
        let lastUsed = state.withLock { s in
            s.items.values.filter { $0.userID == userID }.reduce(into: [String: Int64]()) { last, item in
                for tag in item.tags { last[tag] = max(last[tag] ?? .min, item.createdAt) }
            }
        }
        return lastUsed.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(10).map(\.key)
    }

    var itemCount: Int { state.withLock { $0.items.count } }

    // MARK: - Users and tokens

    func user(_ id: String) -> PRSNLUser? {
        state.withLock { $0.users[id] }
    }

    private func mint(_ userID: String, type: String, lifetime: TimeInterval, now: Date) -> (token: String, jti: String)
    {
        let jti = UUID().uuidString.lowercased()
        let exp = Int((now.timeIntervalSince1970 + lifetime).rounded(.down))
        let payload: JSONObject = [
            "sub": .string(userID), "exp": .int(exp), "type": .string(type), "jti": .string(jti),
        ]
        return (PRSNLJWT.encode(payload, secret: options.secretKey), jti)
    }

    /// A new access/refresh pair and session for `userID`; the caller holds no lock.
    private func issuePair(_ userID: String, now: Date) -> (
        access: String, refresh: String, accessJTI: String, refreshJTI: String
    ) {
        let access = mint(userID, type: "access", lifetime: options.accessTokenLifetime, now: now)
        let refresh = mint(userID, type: "refresh", lifetime: options.refreshTokenLifetime, now: now)
        return (access.token, refresh.token, access.jti, refresh.jti)
    }

    enum LoginOutcome {
        case success(access: String, refresh: String, user: PRSNLUser)
        case invalid
    }

    func login(email: String, password: String, now: Date = Date()) -> LoginOutcome {
        let candidate = state.withLock { s in
            s.users.values.first {
                $0.email.lowercased() == email.lowercased() && $0.password != nil && $0.password == password
            }
        }
        guard let user = candidate else {
            state.withLock { $0.counts.failedLogins += 1 }
            return .invalid
        }
        let pair = issuePair(user.id, now: now)
        let updated: PRSNLUser = state.withLock { s in
            s.counts.logins += 1
            s.sessions[pair.refreshJTI] = user.id
            s.issuedAccess.insert(pair.accessJTI)
            s.users[user.id]?.lastLoginAt = Self.nowMicros(now)
            return s.users[user.id] ?? user
        }
        return .success(access: pair.access, refresh: pair.refresh, user: updated)
    }

    enum RefreshOutcome {
        case success(access: String, refresh: String, user: PRSNLUser)
        case invalid
    }

    /// Rotates a refresh token: the old session is revoked, a new pair issued.
    func refresh(_ token: String, now: Date = Date()) -> RefreshOutcome {
        let decoded = decode(token, now: now)
        guard case .valid(let payload) = decoded, payload["type"]?.stringValue == "refresh",
            let jti = payload["jti"]?.stringValue
        else {
            state.withLock { $0.counts.failedRefreshes += 1 }
            return .invalid
        }
        let userID: String? = state.withLock { s in
            guard let owner = s.sessions.removeValue(forKey: jti), s.users[owner] != nil else { return nil }
            return owner
        }
        guard let userID else {
            state.withLock { $0.counts.failedRefreshes += 1 }
            return .invalid
        }
        let pair = issuePair(userID, now: now)
        let user: PRSNLUser? = state.withLock { s in
            s.counts.refreshes += 1
            s.sessions[pair.refreshJTI] = userID
            s.issuedAccess.insert(pair.accessJTI)
            return s.users[userID]
        }
        guard let user else { return .invalid }
        return .success(access: pair.access, refresh: pair.refresh, user: user)
    }

    /// PyJWT's decode, plus the simulator's forced expiry by jti.
    func decode(_ token: String, now: Date = Date()) -> PRSNLJWT.Decoded {
        let decoded = PRSNLJWT.decode(token, secret: options.secretKey, now: now)
        if case .valid(let payload) = decoded, let jti = payload["jti"]?.stringValue,
            state.withLock({ $0.expired.contains(jti) })
        {
            return .expired(payload)
        }
        return decoded
    }

    /// `require_user_id`: a Bearer HS256 JWT whose `sub` is a UUID. The token type is not
    /// checked and the user is not looked up. Failure is the 401 detail.
    func requireUser(authorization: String?, now: Date = Date()) -> Checked<String, String> {
        let required = "Authentication required"
        guard let authorization, !authorization.isEmpty else { return .failure(required) }
        guard let space = authorization.firstIndex(of: " ") else { return .failure(required) }
        guard authorization[..<space].lowercased() == "bearer" else { return .failure(required) }
        let token = String(authorization[authorization.index(after: space)...])
        switch decode(token, now: now) {
        case .invalid: return .failure(required)
        case .expired: return .failure("Token has expired")
        case .valid(let payload):
            guard let sub = payload["sub"]?.stringValue, !sub.isEmpty, let id = prsnlPythonUUID(sub) else {
                return .failure(required)
            }
            return .success(id)
        }
    }

    /// `get_current_user_optional` (HTTPBearer with auto_error=False): no usable `Bearer x`
    /// header → everyone; a valid access token of an existing user → that user; anything else
    /// (expired, refresh token, bad signature, unknown user) → the hard-coded test user.
    func optionalUser(authorization: String?, now: Date = Date()) -> PRSNLScope {
        guard let token = Self.bearerCredentials(authorization) else { return .everyone }
        if case .valid(let payload) = decode(token, now: now), payload["type"]?.stringValue == "access",
            let sub = payload["sub"]?.stringValue, let id = prsnlPythonUUID(sub), user(id) != nil
        {
            return .user(id)
        }
        return .user(PRSNLSimulator.testUserID)
    }

    /// FastAPI's `HTTPBearer(auto_error=False)`: `scheme, _, credentials = header.partition(" ")`.
    static func bearerCredentials(_ authorization: String?) -> String? {
        guard let authorization, let space = authorization.firstIndex(of: " ") else { return nil }
        let credentials = String(authorization[authorization.index(after: space)...])
        guard authorization[..<space].lowercased() == "bearer", !credentials.isEmpty else { return nil }
        return credentials
    }

    /// Marks tokens as expired: `"access"` (issued by login/refresh), `"refresh"` (every session),
    /// `"static"` (``PRSNLSimulator/demoToken``) or `"all"`. Returns how many jtis were marked.
    func expireTokens(_ which: String) -> Int {
        state.withLock { s in
            var jtis: Set<String> = []
            if which == "access" || which == "all" { jtis.formUnion(s.issuedAccess) }
            if which == "refresh" || which == "all" { jtis.formUnion(s.sessions.keys) }
            if which == "static" || which == "all" { jtis.insert(PRSNLSimulator.demoTokenID) }
            let added = jtis.subtracting(s.expired).count
            s.expired.formUnion(jtis)
            return added
        }
    }

    var authCounts: AuthCounts { state.withLock { $0.counts } }
    var activeSessions: Int { state.withLock { $0.sessions.count } }

    // MARK: - Rate limiting

    var limits: Limits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    /// The failure every search meets inside the service (nil: none).
    var searchError: String? {
        get { state.withLock { $0.searchError } }
        set { state.withLock { $0.searchError = newValue } }
    }

    /// slowapi's fixed window keyed by route (every simulator client is 127.0.0.1): the window
    /// opens at the first hit and lasts 60 s. Returns the limit when this hit exceeds it.
    func hit(_ route: String, now: Date = Date()) -> Int? {
        state.withLock { s in
            let limit = route == "capture" ? s.limits.capture : s.limits.search
            guard let limit else { return nil }
            var window = s.windows[route] ?? (now, 0)
            if now.timeIntervalSince(window.start) >= 60 { window = (now, 0) }
            window.hits += 1
            s.windows[route] = window
            return window.hits > limit ? limit : nil
        }
    }
}
