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
        return try OperationOutput(
            encoding: Self.items(value, limit: arguments["limit"]?.int ?? 10, zone: context.timeZone))
    }

    /// The items of a `/api/timeline` page asked for `limit` rows (`PRSNLTimelineTies`).
    static func items(_ value: JSONValue, limit: Int, zone: TimeZone) -> [KnowledgeItem] {
        PRSNLTimelineTies.page(value, limit: limit).rows.compactMap { PRSNLItems.item($0, zone: zone) }
    }

    /// `GET /api/timeline` for the arguments, read once for both timeline operations: one row
    /// more than `limit` (`PRSNLTimelineTies`), so a page never ends inside a group of items
    /// saved in one microsecond.
    static func page(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> JSONValue {
        let client = try PRSNLClient.make(context)
        let limit = arguments["limit"]?.int ?? 10
        let cursor = arguments["cursor"]?.string
        return try await PRSNLTimelinePages.shared(context.sessions, scope: PRSNLClient.scope(client.settings)).page(
            limit: limit, cursor: cursor
        ) {
            try await client.request(
                "/api/timeline",
                query: [("limit", String(PRSNLTimelineTies.upstreamLimit(for: limit))), ("cursor", cursor)],
                verifyFirst: true)
        }
    }
}

/// `prsnl.timeline_cursor`: the `next_cursor` of the same page as `prsnl.timeline` (same
/// arguments; the page is read once for both): a timestamp to pass back as `cursor` for the
/// items after the page, or null when the page was the last. It is PRSNL's own cursor (the
/// page's last `createdAt`) unless the page ended inside a group of items saved in one
/// microsecond: then it is one microsecond after that group, which the next page starts with
/// (`PRSNLTimelineTies`).
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
        return try OperationOutput(encoding: Self.cursor(value, limit: arguments["limit"]?.int ?? 10))
    }

    /// The next cursor after a `/api/timeline` page asked for `limit` rows (null when it was the
    /// last), in UTC with `Z` (`PRSNLCursor`): it survives being pasted into a URL unencoded.
    static func cursor(_ value: JSONValue, limit: Int) -> JSONValue {
        PRSNLTimelineTies.page(value, limit: limit).nextCursor.map { .string(PRSNLCursor.givenOut($0)) } ?? .null
    }
}

/// `prsnl.search`: the account's items matching `q`. PRSNL's `GET /api/search` is broken
/// upstream (it wants `query`, then fails with a NameError on every cache miss), so this uses the
/// contract's workaround, keyword mode of `POST /api/search/` without a Bearer token (with one it
/// fails too). When that fails, the section says search is unavailable and why.
///
/// PRSNL's search reads every account's items (no owner condition), so only the results the
/// account's own timeline lists are answered (`PRSNLOwnedResults`). PRSNL is asked for twice
/// `limit` (at most 100) so that other accounts' matches leave room for the account's own, with
/// `include_duplicates` (its de-duplication by content runs over every account's results, so
/// another account's copy could hide the account's own); daygate then keeps the first of the
/// account's results with one content fingerprint, as PRSNL's de-duplication would.
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
        let limit = arguments["limit"]?.int ?? 10
        let body = try JSONCoding.encode(
            JSONValue.object([
                "query": .string(arguments["q"]?.string ?? ""), "search_type": .string("keyword"),
                "limit": .number(Double(min(100, 2 * limit))), "include_duplicates": .bool(true),
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
        var owned = PRSNLOwnedResults(items: PRSNLOwnedResults.rows(value, keys: Self.resultKeys))
        try await owned.walk(client)
        return try OperationOutput(encoding: Self.own(value, owned: owned, limit: limit, zone: context.timeZone))
    }

    static let resultKeys = ["results", "items", "data"]

    /// The account's results of a `POST /api/search/` answer, in PRSNL's order: those `owned`
    /// found on the account's timeline, the first of each content fingerprint, at most `limit`.
    static func own(_ value: JSONValue, owned: PRSNLOwnedResults, limit: Int, zone: TimeZone) -> [KnowledgeItem] {
        var fingerprints: Set<String> = []
        var items: [KnowledgeItem] = []
        for row in LenientList.items(in: value, keys: resultKeys) ?? [] {
            guard items.count < limit, let item = PRSNLItems.item(row, zone: zone), owned.isOwn(item.id) else {
                continue
            }
            if let fingerprint = LenientFields(row)?.string("content_fingerprint") {
                guard fingerprints.insert(fingerprint).inserted else { continue }
            }
            items.append(item)
        }
        return items
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
/// list it (`PRSNLOwnedResults`); otherwise it is `not_found` too. A note captured through
/// daygate shows the text it was captured with while PRSNL gives no `content`
/// (`PRSNLCapturedNotes`).
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
        let created = LenientFields(value)?.string("created_at", "createdAt")
        guard created.flatMap(PRSNLCursor.micros) != nil else {
            throw BackendError(
                .badResponse, backend: backend,
                message: "PRSNL sent item \(id) without its creation time, so daygate cannot tell whose it is")
        }
        var owned = PRSNLOwnedResults(items: [(id, created)], maximumReads: 3)
        try await owned.walk(client)
        guard owned.isOwn(id) else {
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
