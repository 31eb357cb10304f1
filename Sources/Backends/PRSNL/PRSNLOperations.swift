import Foundation
import Model

protocol PRSNLOperation: BackendOperation {}

extension PRSNLOperation {
    public var backend: String { PRSNLClient.backend }
    public var defaultTTL: TimeInterval { 600 }
    public func isConfigured(for profile: ProfileConfig) -> Bool { profile.prsnl != nil }
    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        profile.prsnl.map(PRSNLClient.fingerprint) ?? CredentialFingerprint.none
    }
}

/// `prsnl.timeline`: the newest saved items (`limit` ≤ 100, optional `cursor`: a
/// `next_cursor` of an earlier page, for the items saved before it).
public struct PRSNLTimelineOperation: PRSNLOperation {
    public init() {}
    public var name: String { "prsnl.timeline" }
    public var bodySchema: SchemaComponent { PRSNLSchemas.knowledgeTimeline }
    public var arguments: [OperationArgument] {
        [OperationArgument("limit", .int), OperationArgument("cursor", .string)]
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        let limit = arguments["limit"]?.int ?? 10
        guard (1...100).contains(limit) else { throw ErrorDetail.badParameter("limit must be between 1 and 100") }
        var result: [String: ArgumentValue] = ["limit": .int(limit)]
        if let text = arguments["cursor"]?.string {
            guard let cursor = PRSNLCursor.taken(text) else {
                throw ErrorDetail.badParameter("cursor must be a timestamp from next_cursor")
            }
            // One spelling per page (`…Z`), so a pasted `+00:00` shares the cache entry.
            result["cursor"] = .string(PRSNLCursor.givenOut(cursor))
        }
        return result
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let value = try await Self.page(arguments, context: context)
        return try OperationOutput(encoding: Self.items(value, zone: context.timeZone))
    }

    /// The items of a `/api/timeline` page.
    static func items(_ value: JSONValue, zone: TimeZone) -> [KnowledgeItem] {
        (LenientList.items(in: value, keys: ["items", "data"]) ?? []).compactMap { PRSNLItems.item($0, zone: zone) }
    }

    /// `GET /api/timeline` for the arguments, read once for both timeline operations.
    static func page(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> JSONValue {
        let client = try PRSNLClient.make(context)
        let limit = arguments["limit"]?.int ?? 10
        let cursor = arguments["cursor"]?.string
        return try await PRSNLTimelinePages.shared(context.sessions, scope: PRSNLClient.scope(client.settings)).page(
            limit: limit, cursor: cursor
        ) {
            try await client.request(
                "/api/timeline", query: [("limit", String(limit)), ("cursor", cursor)], verifyFirst: true)
        }
    }
}

/// `prsnl.timeline_cursor`: PRSNL's `next_cursor` of the same page as `prsnl.timeline` (same
/// arguments; the page is read once for both): a timestamp to pass back as `cursor` for the
/// items saved before the page's last one, or null when the page was the last (PRSNL sets it
/// only when the page is full).
public struct PRSNLTimelineCursorOperation: PRSNLOperation {
    public init() {}
    public var name: String { "prsnl.timeline_cursor" }
    public var bodySchema: SchemaComponent { PRSNLSchemas.timelineCursor }
    public var arguments: [OperationArgument] { PRSNLTimelineOperation().arguments }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        try PRSNLTimelineOperation().normalise(arguments, clock: clock)
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let value = try await PRSNLTimelineOperation.page(arguments, context: context)
        return try OperationOutput(encoding: Self.cursor(value))
    }

    /// A `/api/timeline` page's `next_cursor` (null when it has none), in UTC with `Z`
    /// (`PRSNLCursor`): it survives being pasted into a URL unencoded.
    static func cursor(_ value: JSONValue) -> JSONValue {
        LenientFields(value)?.string("next_cursor", "nextCursor").map { .string(PRSNLCursor.givenOut($0)) } ?? .null
    }
}

/// `prsnl.search`: items matching `q`. PRSNL's `GET /api/search` is broken upstream (it wants
/// `query`, then fails with a NameError on every cache miss), so this uses the contract's
/// workaround, keyword mode of `POST /api/search/` without a Bearer token (with one it fails
/// too). When that fails, the section says search is unavailable and why.
public struct PRSNLSearchOperation: PRSNLOperation {
    public init() {}
    public var name: String { "prsnl.search" }
    public var bodySchema: SchemaComponent { PRSNLSchemas.knowledgeSearchResults }
    public var defaultTTL: TimeInterval { 300 }
    public var arguments: [OperationArgument] {
        [OperationArgument("q", .string, required: true), OperationArgument("limit", .int)]
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        guard let query = arguments["q"]?.string?.trimmingCharacters(in: .whitespaces), !query.isEmpty else {
            throw ErrorDetail.badParameter("q is required")
        }
        let limit = arguments["limit"]?.int ?? 10
        guard (1...100).contains(limit) else { throw ErrorDetail.badParameter("limit must be between 1 and 100") }
        return ["q": .string(query), "limit": .int(limit)]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try PRSNLClient.make(context)
        let body = try JSONCoding.encode(
            JSONValue.object([
                "query": .string(arguments["q"]?.string ?? ""), "search_type": .string("keyword"),
                "limit": .number(Double(arguments["limit"]?.int ?? 10)),
            ]))
        let value: JSONValue
        do {
            value = try await client.request(
                "/api/search/", method: .POST, body: body, authorized: false, limited: .search)
        } catch let error as BackendError where error.kind == .status || error.kind == .rejected {
            throw BackendError(
                .unavailable, backend: backend,
                message:
                    "PRSNL search is unavailable: its search routes fail upstream (known PRSNL bug; \(error.message))"
            )
        }
        // PRSNL's search service catches its own failures and answers them inside a 200
        // (`{"results": [], "error": "…"}`): a failure, not "nothing found", and never cached.
        if let failure = value["error"], failure != .null {
            let text = failure.stringValue ?? "\(failure)"
            throw BackendError(
                .status, backend: backend, message: "PRSNL's search failed: \(BackendError.scrub(text))")
        }
        return try OperationOutput(encoding: Self.items(value, zone: context.timeZone))
    }

    /// The items of a `POST /api/search/` answer.
    static func items(_ value: JSONValue, zone: TimeZone) -> [KnowledgeItem] {
        (LenientList.items(in: value, keys: ["results", "items", "data"]) ?? []).compactMap {
            PRSNLItems.item($0, zone: zone)
        }
    }
}

/// `prsnl.tags`: the user's tags with counts.
public struct PRSNLTagsOperation: PRSNLOperation {
    public init() {}
    public var name: String { "prsnl.tags" }
    public var bodySchema: SchemaComponent { PRSNLSchemas.tagList }
    public var arguments: [OperationArgument] { [] }
    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        [:]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let value = try await PRSNLClient.make(context).request("/api/tags")
        return try OperationOutput(encoding: Self.tags(value))
    }

    /// The tags with their counts in a `/api/tags` answer.
    static func tags(_ value: JSONValue) -> [JSONValue] {
        (LenientList.items(in: value, keys: ["tags", "data"]) ?? []).compactMap { row -> JSONValue? in
            guard let fields = LenientFields(row), let name = fields.string("name") else { return nil }
            return .object(["name": .string(name), "count": .number(Double(fields.int("count") ?? 0))])
        }
    }
}

/// `prsnl.item`: one saved item by id (a UUID, checked before any call), with its `content`.
/// PRSNL's 404 is `not_found` (`BackendError.Kind.notFound`): the item does not exist, which is
/// not a failure of PRSNL. PRSNL's `GET /api/items/{id}` has no user scope (any account's item
/// by id), so the item is answered only when it is this account's: its own timeline (read with
/// its token, which PRSNL scopes to the account) from just after the item's creation time must
/// list it; otherwise it is `not_found` too. PRSNL's timeline leaves out failed captures, so
/// those are not found either. A note captured through daygate shows the text it was captured
/// with while PRSNL gives no `content` (`PRSNLCapturedNotes`).
public struct PRSNLItemOperation: PRSNLOperation {
    public init() {}
    public var name: String { "prsnl.item" }
    public var bodySchema: SchemaComponent { KnowledgeItem.schemaComponent }
    public var arguments: [OperationArgument] { [OperationArgument("id", .string, required: true)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        guard let id = arguments["id"]?.string, UUID(uuidString: id) != nil else {
            throw ErrorDetail.badParameter("id must be a UUID")
        }
        return ["id": .string(id.lowercased())]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let id = arguments["id"]?.string ?? ""
        let client = try PRSNLClient.make(context)
        let value: JSONValue
        do {
            value = try await client.request(
                "/api/items/\(QueryString.pathSegment(id))", authorized: false, notFoundIsAnswer: true)
        } catch let error as BackendError where error.kind == .rejected && error.status == 404 {
            throw BackendError(.notFound, backend: backend, message: "PRSNL has no saved item \(id)", status: 404)
        }
        let item = try Self.item(value, zone: context.timeZone)
        guard let created = LenientFields(value)?.string("created_at", "createdAt"),
            let cursor = PRSNLCursor.justAfter(created)
        else {
            throw BackendError(
                .badResponse, backend: backend,
                message: "PRSNL sent item \(id) without its creation time, so daygate cannot tell whose it is")
        }
        let page = try await client.request(
            "/api/timeline", query: [("limit", "100"), ("cursor", cursor)], verifyFirst: true)
        guard Self.page(page, lists: id) else {
            throw BackendError(.notFound, backend: backend, message: "PRSNL has no saved item \(id)", status: 404)
        }
        return try OperationOutput(encoding: await Self.withCapturedText(item, context: context))
    }

    /// The item with the text captured through daygate as its `content` when PRSNL gives none
    /// (`PRSNLCapturedNotes`).
    static func withCapturedText(_ item: KnowledgeItem, context: OperationContext) async -> KnowledgeItem {
        guard item.content?.isEmpty ?? true, let settings = context.profile.prsnl else { return item }
        var item = item
        if let text = await PRSNLCapturedNotes.shared(context, scope: PRSNLClient.scope(settings)).text(of: item.id) {
            item.content = text
        }
        return item
    }

    /// Whether a `/api/timeline` page lists the item `id`.
    static func page(_ page: JSONValue, lists id: String) -> Bool {
        (LenientList.items(in: page, keys: ["items", "data"]) ?? []).contains {
            LenientFields($0)?.string("id")?.lowercased() == id.lowercased()
        }
    }

    /// The item of a `/api/items/{id}` answer, with its content.
    static func item(_ value: JSONValue, zone: TimeZone) throws -> KnowledgeItem {
        guard let item = PRSNLItems.item(value, zone: zone, withContent: true) else {
            throw BackendError(.badResponse, backend: PRSNLClient.backend, message: "PRSNL sent an item without an id")
        }
        return item
    }
}

enum PRSNLItems {
    /// Timeline rows (camelCase `createdAt`), item bodies and search results (snake_case) alike;
    /// `content` only `withContent` (the single item: lists stay small).
    static func item(_ value: JSONValue, zone: TimeZone, withContent: Bool = false) -> KnowledgeItem? {
        guard let fields = LenientFields(value), let id = fields.string("id") else { return nil }
        let created = fields.string("created_at", "createdAt").flatMap { LenientDate.parse($0) }.map {
            LenientDate.format($0, in: zone)
        }
        return KnowledgeItem(
            id: id, title: fields.string("title"), url: fields.string("url"),
            summary: fields.string("summary", "snippet"), type: fields.string("type", "content_type", "item_type"),
            tags: fields.strings("tags") ?? [], createdAt: created, permalink: fields.string("permalink"),
            content: withContent ? fields.string("content") : nil
        )
    }
}
