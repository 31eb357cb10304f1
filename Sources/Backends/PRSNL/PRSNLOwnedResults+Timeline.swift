import Model

extension PRSNLOwnedResults {
    /// Reads the account's timeline pages the walk asks for, each with the token check beside it
    /// (`verifyFirst`: PRSNL lists a fixed test user's items for an invalid token, which must
    /// never count as the account's).
    mutating func walk(_ client: PRSNLClient) async throws {
        while let cursor = nextCursor() {
            let page = try await client.request(
                "/api/timeline", query: [("limit", String(Self.pageSize)), ("cursor", cursor)], verifyFirst: true)
            read(page: Self.rows(page))
        }
    }

    /// The ids and creation times of a `/api/timeline` page's rows (camelCase `createdAt`), or
    /// of a search answer's results (snake_case `created_at`).
    static func rows(_ value: JSONValue, keys: [String] = ["items", "data"]) -> [(id: String, createdAt: String?)] {
        (LenientList.items(in: value, keys: keys) ?? []).compactMap { row in
            guard let fields = LenientFields(row), let id = fields.string("id") else { return nil }
            return (id, fields.string("createdAt", "created_at"))
        }
    }
}
