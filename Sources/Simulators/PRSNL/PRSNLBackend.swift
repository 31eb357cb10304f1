import Foundation
import Hummingbird
import Model

/// PRSNL's routes as the contract describes them (FastAPI error shapes, Starlette routing).
struct PRSNLBackend: SimulatorBackend {
    let store: PRSNLStore
    private let router: StarletteRouter

    static let errorCode = HTTPFields.Element.Name("X-Error-Code")!
    static let retryAfter = HTTPFields.Element.Name("Retry-After")!

    init(store: PRSNLStore) {
        self.store = store
        var router = StarletteRouter()
        router.add(.post, "/api/auth/login") { req, _ in Self.login(store, req) }
        router.add(.post, "/api/auth/refresh") { req, _ in Self.refresh(store, req) }
        router.add(.post, "/api/capture") { req, _ in Self.capture(store, req) }
        router.add(.get, "/api/timeline") { req, _ in Self.timeline(store, req) }
        router.add(.get, "/api/items/{item_id}") { _, p in Self.item(store, p["item_id"] ?? "") }
        router.add(.get, "/api/tags") { req, _ in Self.tags(store, req) }
        router.add(.get, "/api/tags/recent") { req, _ in Self.recentTags(store, req) }
        router.add(.get, "/api/search") { req, _ in Self.brokenSearch(req) }
        router.add(.post, "/api/search/") { req, _ in Self.enhancedSearch(store, req) }
        router.add(.get, "/api/analytics/trends") { req, _ in Self.trends(store, req) }
        router.add(.get, "/api/health") { _, _ in
            .json(
                .object([
                    "status": .string("healthy"), "timestamp": .string(Self.utcNowNaive()), "version": .string("1.0.0"),
                    "service": .string("prsnl-backend"),
                ])
            )
        }
        router.add(.get, "/api/health/live") { _, _ in .json(.object(["status": .string("alive")])) }
        router.add(.get, "/health") { _, _ in
            .json(
                .object([
                    "database": .object(["status": .string("UP"), "details": .string("Connection successful")]),
                    "azure_openai": .object([
                        "status": .string("DOWN"),
                        "details": .string("Azure OpenAI API key or endpoint not configured"),
                    ]),
                    "disk_space": .object([
                        "status": .string("UP"), "details": .string("Free: 112.40 GB / Total: 460.43 GB"),
                    ]),
                    "overall_status": .string("DOWN"),
                ]),
                status: 503
            )
        }
        self.router = router
    }

    func handle(_ request: SimRequest) async -> Response {
        await router.respond(to: request)
    }

    // MARK: - Control routes

    var controlRoutes: [String] {
        [
            "POST /_sim/tokens/expire", "GET /_sim/auth", "GET /_sim/options", "POST /_sim/options",
            "POST /_sim/import", "POST /_sim/reset",
        ]
    }

    func handleControl(_ request: SimRequest) async -> Response? {
        switch (request.method, request.path) {
        case (.post, "/_sim/tokens/expire"):
            var which = "access"
            if request.body.readableBytes > 0 {
                guard case .object(let o) = JSONValue.parse(request.body.readableBytesView) else {
                    return .simError("expected a JSON object like {\"tokens\":\"access\"}")
                }
                if let value = o["tokens"] {
                    guard let raw = value.stringValue, ["access", "refresh", "static", "all"].contains(raw) else {
                        return .simError("tokens must be \"access\", \"refresh\", \"static\" or \"all\"")
                    }
                    which = raw
                }
            }
            let count = store.expireTokens(which)
            return .json(.object(["tokens": .string(which), "expired": .int(count)]))
        case (.get, "/_sim/auth"):
            let counts = store.authCounts
            return .json(
                .object([
                    "logins": .int(counts.logins), "failed_logins": .int(counts.failedLogins),
                    "refreshes": .int(counts.refreshes),
                    "failed_refreshes": .int(counts.failedRefreshes), "active_sessions": .int(store.activeSessions),
                ])
            )
        case (.get, "/_sim/options"):
            return .json(optionsJSON)
        case (.post, "/_sim/options"), (.put, "/_sim/options"):
            guard case .object(let o) = JSONValue.parse(request.body.readableBytesView) else {
                return .simError("expected a JSON object like {\"rate_limit_per_minute\":30}")
            }
            var limits = store.limits
            for (key, path) in [
                ("rate_limit_per_minute", \PRSNLStore.Limits.capture), ("search_rate_limit_per_minute", \.search),
            ] {
                guard let value = o[key] else { continue }
                switch value {
                case .null: limits[keyPath: path] = nil
                case .int(let n) where n >= 0: limits[keyPath: path] = n
                default: return .simError("\(key) must be a non-negative integer or null")
                }
            }
            if let value = o["search_error"] {
                switch value {
                case .null: store.searchError = nil
                case .string(let text): store.searchError = text
                default: return .simError("search_error must be a string or null")
                }
            }
            store.limits = limits
            return .json(optionsJSON)
        case (.post, "/_sim/import"):
            return importItems(request)
        case (.post, "/_sim/reset"):
            store.reset()
            return .json(.object(["items": .int(store.itemCount)]))
        default:
            return nil
        }
    }

    /// `POST /_sim/import {"user":"demo"|"test"|<uuid>,"count":n,"title":"…","at":"<ISO>"?,
    /// "content_fingerprint":"…"?}`: n notes saved in one transaction, as an import does — every
    /// row gets the transaction's `NOW()` (or `at`), so they share one `created_at` to the
    /// microsecond. Titles are `"<title> <i>"` (searchable); status completed; the fingerprint
    /// (what search de-duplicates on) only when given.
    private func importItems(_ request: SimRequest) -> Response {
        guard case .object(let o) = JSONValue.parse(request.body.readableBytesView),
            case .int(let count) = o["count"], (1...1000).contains(count)
        else { return .simError("expected {\"count\":1…1000,\"user\":\"demo\"|\"test\"|<uuid>,\"title\"}") }
        let user: String
        switch o["user"]?.stringValue ?? "demo" {
        case "demo": user = PRSNLSimulator.demoUserID
        case "test": user = PRSNLSimulator.testUserID
        case let other where UUID(uuidString: other) != nil: user = other.lowercased()
        default: return .simError("user must be \"demo\", \"test\" or a UUID")
        }
        var at = PRSNLStore.nowMicros()
        if let text = o["at"]?.stringValue {
            guard let parsed = PyDateTime.fromISOFormat(text.replacingOccurrences(of: "Z", with: "+00:00")) else {
                return .simError("at must be an ISO time")
            }
            at = parsed.utcMicros
        }
        let title = o["title"]?.stringValue ?? "Imported"
        let fingerprint = o["content_fingerprint"]?.stringValue
        var ids: [JSONValue] = []
        for index in 0..<count {
            let id = UUID().uuidString.lowercased()
            ids.append(.string(id))
            store.insert(
                PRSNLItem(
                    id: id, userID: user, title: "\(title) \(index)", url: nil, summary: nil,
                    content: "\(title) \(index)", platform: nil, type: "note", category: nil, contentType: "note",
                    thumbnailURL: nil, duration: nil, status: "completed", createdAt: at, updatedAt: at, tags: [],
                    metadata: [:], contentFingerprint: fingerprint, sequence: 0))
        }
        return .json(.object(["ids": .array(ids), "created_at": .string(PRSNLItem.pythonISO(at))]))
    }

    private var optionsJSON: JSONValue {
        let limits = store.limits
        return .object([
            "seed_day": .string(store.options.seedDay),
            "time_zone": .string(store.options.timeZone.identifier),
            "access_token_lifetime": .double(store.options.accessTokenLifetime),
            "refresh_token_lifetime": .double(store.options.refreshTokenLifetime),
            "rate_limit_per_minute": limits.capture.map(JSONValue.int) ?? .null,
            "search_rate_limit_per_minute": limits.search.map(JSONValue.int) ?? .null,
            "search_error": store.searchError.map(JSONValue.string) ?? .null,
        ])
    }

    // MARK: - Helpers

    static func detail(_ message: String, status: Int, code: String? = nil) -> Response {
        var headers: HTTPFields = [:]
        if let code { headers[errorCode] = code }
        return .json(.object(["detail": .string(message)]), status: status, headers: headers)
    }

    /// The unhandled-exception middleware's answer.
    static var unexpectedError: Response {
        .json(
            .object(["detail": .string("An unexpected error occurred"), "code": .string("INTERNAL_SERVER_ERROR")]),
            status: 500)
    }

    static func rateLimited(_ limit: Int) -> Response {
        .json(
            .object([
                "error": .string("rate_limit_exceeded"),
                "message": .string("Rate limit exceeded: \(limit) per 1 minute"),
                "retry_after": .null,
            ]),
            status: 429,
            headers: [retryAfter: "60"]
        )
    }

    /// `datetime.utcnow().isoformat()`.
    static func utcNowNaive() -> String { Civil.isoString(PRSNLStore.nowMicros()) }

    static func authorization(_ request: SimRequest) -> String? { request.headers[.authorization] }

    // MARK: - Auth

    static func login(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        let object: JSONObject
        switch FastAPIBody.object(request) {
        case .failure(let response): return response
        case .success(let o): object = o
        }
        var fields: [String: JSONValue]
        switch PRSNLValidation.validate(
            object,
            [
                .init(name: "email", kind: .string(), required: true),
                .init(name: "password", kind: .string(), required: true),
            ]
        ) {
        case .failure(let response): return response
        case .success(let f): fields = f
        }
        let email = fields["email"]?.stringValue ?? ""
        if email.split(separator: "@", omittingEmptySubsequences: false).count != 2 {
            let reason =
                email.contains("@")
                ? "The email address is not valid. It must have exactly one @-sign."
                : "An email address must have an @-sign."
            return PydanticError.response([
                PydanticError(
                    type: "value_error", loc: [.string("body"), .string("email")],
                    msg: "value is not a valid email address: \(reason)",
                    input: .string(email), ctx: ["reason": .string(reason)]
                )
            ])
        }
        switch store.login(email: email, password: fields["password"]?.stringValue ?? "") {
        case .invalid:
            return detail("Invalid email or password", status: 401)
        case .success(let access, let refresh, let user):
            return .json(
                .object([
                    "access_token": .string(access), "refresh_token": .string(refresh), "token_type": .string("bearer"),
                    "user": .object([
                        "id": .string(user.id), "email": .string(user.email), "name": .string(user.name),
                        "is_verified": .bool(user.isVerified),
                    ]),
                ])
            )
        }
    }

    static func refresh(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        let object: JSONObject
        switch FastAPIBody.object(request) {
        case .failure(let response): return response
        case .success(let o): object = o
        }
        let fields: [String: JSONValue]
        switch PRSNLValidation.validate(object, [.init(name: "refresh_token", kind: .string(), required: true)]) {
        case .failure(let response): return response
        case .success(let f): fields = f
        }
        switch store.refresh(fields["refresh_token"]?.stringValue ?? "") {
        case .invalid:
            return detail("Invalid or expired refresh token", status: 401)
        case .success(let access, let refresh, let user):
            let created = userCreatedAt(store)
            return .json(
                .object([
                    "access_token": .string(access), "refresh_token": .string(refresh), "token_type": .string("bearer"),
                    "expires_in": .int(3600),
                    "user": .object([
                        "id": .string(user.id), "email": .string(user.email), "first_name": .string(user.firstName),
                        "last_name": .string(user.lastName), "is_active": .bool(true),
                        "is_verified": .bool(user.isVerified),
                        "user_type": .string("individual"), "onboarding_completed": .bool(true),
                        "created_at": .string(PRSNLItem.zulu(created)), "updated_at": .string(PRSNLItem.zulu(created)),
                        "last_login_at": user.lastLoginAt.map { .string(PRSNLItem.zulu($0)) } ?? .null,
                    ]),
                ])
            )
        }
    }

    /// The demo account was created 90 days before the seed day, 19:42:07.318204 UTC.
    static func userCreatedAt(_ store: PRSNLStore) -> Int64 {
        guard let seedDay = LocalDate(store.options.seedDay) else { return 0 }
        let created = Civil.micros(
            year: seedDay.year, month: seedDay.month, day: seedDay.day, hour: 19, minute: 42, second: 7)
        return created - 90 * Civil.microsPerDay + 318_204
    }

    // MARK: - Items

    static func timeline(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        let query = QueryItems(raw: request.rawQuery)
        var errors: [PydanticError] = []
        let limit = PRSNLValidation.queryInt(query, "limit", ge: 1, le: 100, errors: &errors) ?? 20
        _ = PRSNLValidation.queryInt(query, "page", errors: &errors)
        if !errors.isEmpty { return PydanticError.response(errors) }
        let scope = store.optionalUser(authorization: authorization(request))
        var before: Int64?
        if let cursor = query.value("cursor"), !cursor.isEmpty {
            guard let parsed = PyDateTime.fromISOFormat(cursor.replacingOccurrences(of: "Z", with: "+00:00")) else {
                return detail("Invalid cursor format.", status: 400)
            }
            before = parsed.utcMicros
        }
        let items = store.timeline(scope: scope, before: before, limit: limit)
        let next: JSONValue =
            items.count == limit ? .string(PRSNLItem.pythonISO(items[items.count - 1].createdAt)) : .null
        return .json(.object(["items": .array(items.map(\.timelineJSON)), "next_cursor": next]))
    }

    static func item(_ store: PRSNLStore, _ rawID: String) -> Response {
        switch prsnlPydanticUUID(rawID) {
        case .failure(let error):
            return PydanticError.response([
                PydanticError(
                    type: "uuid_parsing", loc: [.string("path"), .string("item_id")],
                    msg: "Input should be a valid UUID, \(error)",
                    input: .string(rawID), ctx: ["error": .string(error)]
                )
            ])
        case .success(let id):
            guard let item = store.item(id) else {
                return detail("Item with ID \(id) not found", status: 404, code: "ITEM_NOT_FOUND")
            }
            return .json(item.detailJSON)
        }
    }

    static func tags(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        switch store.requireUser(authorization: authorization(request)) {
        case .failure(let message): return detail(message, status: 401)
        case .success(let userID):
            return .json(
                .array(store.tags(userID: userID).map { .object(["name": .string($0.0), "count": .int($0.1)]) }))
        }
    }

    static func recentTags(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        switch store.requireUser(authorization: authorization(request)) {
        case .failure(let message): return detail(message, status: 401)
        case .success(let userID): return .json(.array(store.recentTags(userID: userID).map(JSONValue.string)))
        }
    }

    // MARK: - Capture

    static let validContentTypes = [
        "article", "video", "document", "image", "note", "link", "tutorial", "audio", "code", "development",
        "github_repo",
        "github_document", "auto",
    ]

    static let captureFields: [PRSNLValidation.Field] = [
        .init(name: "url", kind: .string(), nullable: true),
        .init(name: "content", kind: .string(max: 50_000), nullable: true),
        .init(name: "title", kind: .string(), nullable: true),
        .init(name: "highlight", kind: .string(max: 1000), nullable: true),
        .init(name: "tags", kind: .stringList),
        .init(name: "enable_summarization", kind: .bool),
        .init(name: "content_type", kind: .string(), nullable: true),
        .init(name: "uploaded_files", kind: .stringList),
        .init(name: "programming_language", kind: .string(), nullable: true),
        .init(name: "project_category", kind: .string(), nullable: true),
        .init(name: "difficulty_level", kind: .int(ge: 1, le: 5), nullable: true),
        .init(name: "is_career_related", kind: .bool),
    ]

    static func capture(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        let userID: String
        switch store.requireUser(authorization: authorization(request)) {
        case .failure(let message): return detail(message, status: 401)
        case .success(let id): userID = id
        }
        let object: JSONObject
        switch FastAPIBody.object(request) {
        case .failure(let response): return response
        case .success(let o): object = o
        }
        let fields: [String: JSONValue]
        switch PRSNLValidation.validate(object, captureFields) {
        case .failure(let response): return response
        case .success(let f): fields = f
        }
        if let limit = store.hit("capture") { return rateLimited(limit) }

        func text(_ name: String) -> String? {
            guard let s = fields[name]?.stringValue, !s.isEmpty else { return nil }
            return s
        }
        let url = text("url")
        let content = text("content")
        let highlight = text("highlight")
        let hasFiles: Bool = {
            if case .array(let files) = fields["uploaded_files"] { return !files.isEmpty }
            return false
        }()
        guard url != nil || content != nil || hasFiles || highlight != nil else {
            return detail("Either URL, content, or files must be provided.", status: 400, code: "INVALID_INPUT")
        }
        var contentType: String? = fields["content_type"]?.stringValue
        if let ct = contentType, !ct.isEmpty, !validContentTypes.contains(ct) {
            return detail(
                "Invalid content_type '\(ct)'. Valid types: \(validContentTypes.sorted().joined(separator: ", "))",
                status: 400,
                code: "INVALID_INPUT"
            )
        }
        if let url, let existing = store.existing(url: url, userID: userID) {
            let day = String(Civil.isoString(existing.createdAt).prefix(10))
            return detail(
                "This URL already exists in your knowledge base. Item: '\(existing.title)' (created \(day))",
                status: 400,
                code: "INVALID_INPUT"
            )
        }

        let auto = contentType == nil || contentType == "" || contentType == "auto"
        var itemType = "article"
        if let url, url.lowercased().contains("github.com"), auto {
            let githubType = githubContentType(url)
            itemType = githubType == "github_repo" || githubType == "github_document" ? githubType : "development"
            contentType = githubType
        } else if !auto, let ct = contentType {
            itemType = ct
        } else if url != nil {
            // Upstream: `metadata.update(...)` runs before `metadata` is assigned.
            return detail(
                "Failed to capture item: cannot access local variable 'metadata' where it is not associated with a value",
                status: 500,
                code: "INTERNAL_SERVER_ERROR"
            )
        }
        let summarize = fields["enable_summarization"] == .bool(true)
        if url != nil, !summarize, !["video", "document", "image", "development"].contains(contentType ?? ""),
            !["development", "video"].contains(itemType)
        {
            itemType = "link"
        }
        var platform: String?
        if ["github_repo", "github_document"].contains(itemType) {
            platform = "github"
        } else if let url, url.lowercased().contains("youtube.com") {
            platform = "youtube"
        } else if let url, url.lowercased().contains("vimeo.com") {
            platform = "vimeo"
        }

        var tags: [String] = []
        if case .array(let raw) = fields["tags"] {
            for case .string(let tag) in raw {
                let lowered = tag.lowercased()
                if !tags.contains(lowered) { tags.append(lowered) }
            }
        }
        let now = PRSNLStore.nowMicros()
        let id = UUID().uuidString.lowercased()
        let metadata: JSONObject = [
            "capture_type": .string("page"), "media_info": .null, "type": .string(itemType),
            "content_type": contentType.map(JSONValue.string) ?? .null,
            "platform": platform.map(JSONValue.string) ?? .null,
        ]
        store.insert(
            PRSNLItem(
                id: id, userID: userID, title: text("title") ?? "Untitled", url: url, summary: nil, content: nil,
                platform: platform,
                type: itemType, category: nil, contentType: contentType.flatMap { $0.isEmpty ? nil : $0 } ?? "auto",
                thumbnailURL: nil,
                duration: nil, status: "pending", createdAt: now, updatedAt: now, tags: tags, metadata: metadata,
                contentFingerprint: nil, sequence: 0
            )
        )
        return .json(
            .object([
                "id": .string(id), "status": .string("pending"), "message": .string("Item capture initiated"),
                "duplicate_info": .null,
            ]),
            status: 201
        )
    }

    /// The URL classifier's GitHub types: `owner/repo` → github_repo, a Markdown file → github_document.
    static func githubContentType(_ url: String) -> String {
        let afterHost = url.lowercased().components(separatedBy: "github.com").dropFirst().joined(
            separator: "github.com")
        let path = afterHost.split(separator: "?").first.map(String.init) ?? ""
        let parts = path.split(separator: "/").filter { !$0.isEmpty }
        if parts.count == 2 { return "github_repo" }
        if path.hasSuffix(".md") || path.hasSuffix(".rst") || path.hasSuffix(".txt") { return "github_document" }
        return "development"
    }

    // MARK: - Search

    /// `GET /api/search`: the parameter is `query`; with it, the undefined `logger` raises a NameError.
    static func brokenSearch(_ request: SimRequest) -> Response {
        let query = QueryItems(raw: request.rawQuery)
        var errors: [PydanticError] = []
        if query.value("query") == nil {
            errors.append(.missing([.string("query"), .string("query")], input: .null))
        }
        _ = PRSNLValidation.queryInt(query, "limit", errors: &errors)
        _ = PRSNLValidation.queryInt(query, "offset", errors: &errors)
        if !errors.isEmpty { return PydanticError.response(errors) }
        return unexpectedError
    }

    static let searchFields: [PRSNLValidation.Field] = [
        .init(name: "query", kind: .string(min: 1, max: 1000), required: true),
        .init(name: "search_type", kind: .literal(["semantic", "keyword", "hybrid"])),
        .init(name: "limit", kind: .int(ge: 1, le: 100)),
        .init(name: "threshold", kind: .float(ge: 0, le: 1)),
        .init(name: "include_duplicates", kind: .bool),
        .init(name: "filters", kind: .object, nullable: true),
    ]

    /// `POST /api/search/` (enhanced search): works without credentials only.
    static func enhancedSearch(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        let object: JSONObject
        switch FastAPIBody.object(request) {
        case .failure(let response): return response
        case .success(let o): object = o
        }
        let fields: [String: JSONValue]
        switch PRSNLValidation.validate(object, searchFields) {
        case .failure(let response): return response
        case .success(let f): fields = f
        }
        if let limit = store.hit("search") { return rateLimited(limit) }
        if PRSNLStore.bearerCredentials(authorization(request)) != nil {
            return detail("Search failed: 'User' object has no attribute 'get'", status: 500)
        }
        let queryText = fields["query"]?.stringValue ?? ""
        let searchType = fields["search_type"]?.stringValue ?? "hybrid"
        let limit: Int = {
            switch fields["limit"] {
            case .int(let i): return i
            case .double(let d): return Int(d)
            case .string(let s): return PRSNLValidation.pythonInt(s) ?? 20
            default: return 20
            }
        }()
        let threshold: JSONValue = {
            switch fields["threshold"] {
            case .double(let d): return .double(d)
            case .string(let s): return .double(Double(s.trimmingCharacters(in: .whitespaces)) ?? 0.3)
            default: return .double(0.3)
            }
        }()
        let includeDuplicates = fields["include_duplicates"] == .bool(true)
        var typeFilter: String?
        if case .object(let filters) = fields["filters"] { typeFilter = filters["type"]?.stringValue }
        let search = PRSNLSearch(items: store.allItems(), typeFilter: typeFilter)

        var result: JSONObject
        if let failure = store.searchError {
            // enhanced_search_service catches its own failure and answers it inside a 200.
            result = ["results": .array([]), "error": .string(failure)]
        } else if includeDuplicates {
            result = search.run(queryText, type: searchType, limit: limit)
        } else {
            let initial = search.run(queryText, type: searchType, limit: limit * 2)
            var seen: Set<String> = []
            var deduplicated: [JSONValue] = []
            let original: [JSONValue] = { if case .array(let a) = initial["results"] { return a } else { return [] } }()
            for entry in original {
                if let fingerprint = entry["content_fingerprint"]?.stringValue {
                    if seen.contains(fingerprint) { continue }
                    seen.insert(fingerprint)
                }
                deduplicated.append(entry)
            }
            result = JSONObject(
                fields: initial.fields.map {
                    $0.0 == "results" ? ($0.0, .array(Array(deduplicated.prefix(limit)))) : $0
                })
            result.append(
                "deduplication",
                .object([
                    "original_count": .int(original.count), "deduplicated_count": .int(deduplicated.count),
                    "removed_duplicates": .int(original.count - deduplicated.count),
                ])
            )
        }
        result.append("user_id", .string("anonymous"))
        result.append(
            "request_params",
            .object([
                "search_type": .string(searchType), "limit": .int(limit), "threshold": threshold,
                "include_duplicates": .bool(includeDuplicates),
            ])
        )
        return .json(.object(result))
    }

    // MARK: - Analytics

    static func trends(_ store: PRSNLStore, _ request: SimRequest) -> Response {
        let timeframe = QueryItems(raw: request.rawQuery).value("timeframe") ?? "30d"
        let days: Int64
        switch timeframe {
        case "7d": days = 7
        case "30d": days = 30
        case "90d": days = 90
        case "1y": days = 365
        default:
            return detail(
                "Failed to retrieve content trends: 400: Invalid timeframe specified.", status: 500,
                code: "INTERNAL_SERVER_ERROR")
        }
        let since = PRSNLStore.nowMicros() - days * Civil.microsPerDay
        var counts: [String: Int] = [:]
        for item in store.allItems() where item.createdAt >= since {
            counts[String(Civil.isoString(item.createdAt).prefix(10)), default: 0] += 1
        }
        let trends = counts.sorted { $0.key < $1.key }.map {
            JSONValue.object(["date": .string($0.key), "count": .int($0.value)])
        }
        return .json(.object(["trends": .array(trends)]))
    }
}

/// `enhanced_search_service` without embeddings: keyword search approximating Postgres'
/// `plainto_tsquery('english', …)` (every non-stop-word must match, crude stemming) and
/// `ts_rank_cd` (0.1 per matching occurrence, as a float4); semantic search finds nothing.
struct PRSNLSearch {
    let items: [PRSNLItem]
    let typeFilter: String?

    static let stopWords: Set<String> = [
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "how", "i", "if", "in", "into", "is",
        "it", "its", "my",
        "no", "not", "of", "on", "or", "our", "so", "such", "that", "the", "their", "then", "there", "these", "they",
        "this", "to",
        "was", "we", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
    ]

    static func stem(_ word: String) -> String {
        var w = word
        if w.hasSuffix("'s") { w.removeLast(2) }
        if w.hasSuffix("ies"), w.count > 4 { return String(w.dropLast(3)) + "y" }
        if w.hasSuffix("ing"), w.count > 5 { return String(w.dropLast(3)) }
        if w.hasSuffix("ed"), w.count > 4 { return String(w.dropLast(2)) }
        if w.hasSuffix("s"), !w.hasSuffix("ss"), w.count > 3 { return String(w.dropLast()) }
        return w
    }

    static func lexemes(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
            .filter { !$0.isEmpty && !stopWords.contains($0) }.map(stem)
    }

    /// One search mode's service result, keys in the service's order.
    func run(_ query: String, type: String, limit: Int) -> JSONObject {
        let timestamp = JSONValue.string(PRSNLBackend.utcNowNaive())
        switch type {
        case "semantic":
            return ["results": .array([]), "error": .string("Failed to generate query embedding")]
        case "keyword":
            let results = keyword(query, limit: limit).map { entry($0.0, similarity: $0.1, searchType: "keyword") }
            return [
                "results": .array(results), "total": .int(results.count), "query": .string(query),
                "search_type": .string("keyword"),
                "timestamp": timestamp,
            ]
        default:
            let combined = keyword(query, limit: limit * 2).map { item, score -> JSONValue in
                var o = entry(item, similarity: Double(score) * 0.3, searchType: "hybrid")
                o.append("component_scores", .object(["semantic": .int(0), "keyword": .double(Double(score))]))
                return .object(o)
            }
            return [
                "results": .array(Array(combined.prefix(limit))), "total": .int(combined.count),
                "query": .string(query),
                "search_type": .string("hybrid"),
                "weights": .object(["semantic": .double(0.7), "keyword": .double(0.3)]),
                "timestamp": timestamp,
            ]
        }
    }

    private func entry(_ item: PRSNLItem, similarity: Double, searchType: String) -> JSONObject {
        [
            "id": .string(item.id), "title": .string(item.title), "url": item.url.map(JSONValue.string) ?? .null,
            "summary": item.summary.map(JSONValue.string) ?? .null, "type": .string(item.type),
            "created_at": .string(PRSNLItem.pythonISO(item.createdAt)),
            "content_fingerprint": item.contentFingerprint.map(JSONValue.string) ?? .null,
            "similarity": .double(similarity),
            "search_type": .string(searchType),
        ]
    }

    private func entry(_ item: PRSNLItem, similarity: Float, searchType: String) -> JSONValue {
        .object(entry(item, similarity: Double(similarity), searchType: searchType))
    }

    /// Matching items with their rank, best first, then newest first.
    func keyword(_ query: String, limit: Int) -> [(PRSNLItem, Float)] {
        let terms = Set(Self.lexemes(query))
        guard !terms.isEmpty else { return [] }
        var hits: [(PRSNLItem, Float)] = []
        for item in items {
            if let typeFilter, item.type != typeFilter { continue }
            let words = Self.lexemes([item.title, item.summary ?? "", item.content ?? ""].joined(separator: " "))
            guard terms.allSatisfy(words.contains) else { continue }
            let occurrences = words.filter(terms.contains).count
            hits.append((item, Float(occurrences) * 0.1))
        }
        hits.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.createdAt > $1.0.createdAt }
        return Array(hits.prefix(limit))
    }
}
