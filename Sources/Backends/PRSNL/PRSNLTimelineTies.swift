import Model

/// A timeline page as daygate answers it, so that no item is skipped between pages.
///
/// PRSNL pages its timeline on `created_at < cursor` with no tie-break, and its `next_cursor` is
/// the page's last `createdAt`. Items that share that microsecond (a bulk import saves many rows
/// in one transaction, with one `NOW()`) but did not fit on the page are then never listed: the
/// next page starts below them. So daygate asks PRSNL for one row more than it answers
/// (``upstreamLimit(for:)``) and looks at it: when it is older than the page's last row, that
/// row's microsecond is complete on the page and the next page starts below it, as PRSNL's own
/// cursor would; when it shares the last row's microsecond, daygate leaves that trailing group
/// off the page and gives out a cursor one microsecond after it, so the next page starts with the
/// whole group. At `limit` 100 (PRSNL's largest page) there is no row to look at, so a full page
/// always leaves its trailing group to the next one. The page is that much shorter; nothing is
/// listed twice. A page that is one single group is answered whole, with the cursor below it
/// (no cursor reaches the rest of such a group). Pure: tested without sockets.
enum PRSNLTimelineTies {
    struct Page {
        /// The rows daygate answers, newest first.
        var rows: [JSONValue]
        /// The cursor for the next page (`…Z`), or nil when this page was the last.
        var nextCursor: String?
    }

    /// The `limit` daygate sends PRSNL for a page of `limit` rows: one more, up to PRSNL's 100.
    static func upstreamLimit(for limit: Int) -> Int { min(limit + 1, 100) }

    /// The page of at most `limit` rows in `value`, PRSNL's answer to ``upstreamLimit(for:)`` rows.
    static func page(_ value: JSONValue, limit: Int) -> Page {
        let rows = LenientList.items(in: value, keys: ["items", "data"]) ?? []
        let asked = upstreamLimit(for: limit)
        guard rows.count >= asked, limit >= 1 else { return Page(rows: Array(rows.prefix(limit)), nextCursor: nil) }
        let shown = Array(rows.prefix(limit))
        guard let last = shown.last.flatMap(micros) else {
            return Page(rows: shown, nextCursor: LenientFields(value)?.string("next_cursor", "nextCursor"))
        }
        let below = Civil.isoString(last) + "Z"
        if asked > limit, let lookahead = micros(rows[limit]), lookahead < last {
            return Page(rows: shown, nextCursor: below)
        }
        let group = shown.reversed().prefix { micros($0) == last }.count
        guard group < shown.count else { return Page(rows: shown, nextCursor: below) }
        return Page(rows: Array(shown.dropLast(group)), nextCursor: Civil.isoString(last + 1) + "Z")
    }

    private static func micros(_ row: JSONValue) -> Int64? {
        LenientFields(row)?.string("createdAt", "created_at").flatMap(PRSNLCursor.micros)
    }
}
