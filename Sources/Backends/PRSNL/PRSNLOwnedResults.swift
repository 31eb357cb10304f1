import Model

/// Which of some PRSNL items are the account's own, found by reading the account's timeline.
///
/// PRSNL's keyword search and its item read have no owner condition (any account's items), while
/// its timeline read with the account's token lists only the account's. So an item is the
/// account's when the account's timeline lists it. The walk reads 100-item timeline pages, each
/// starting one microsecond after the newest item not yet decided (PRSNL's filter is
/// `created_at < cursor`), so one page decides every item between its start and its last row,
/// and the stretches of the timeline between the items asked about are skipped, not read.
///
/// A full page decides the items older than its start and newer than its last row (listed: own;
/// not listed: another account's); an item created in the same microsecond as the page's last
/// row stays undecided (a bulk import can give many items one `created_at`, and the rest of that
/// group is on the next page). A page that is not full decides everything. The walk ends when
/// nothing is undecided, after `maximumReads` pages, or when a page made no progress (100 rows
/// sharing one microsecond); what is still undecided then is not shown: an item is never
/// answered as the account's without the account's timeline listing it. Pure: the caller reads
/// the pages; tested without sockets.
struct PRSNLOwnedResults: Sendable {
    /// A timeline page's length: PRSNL's largest.
    static let pageSize = 100

    private struct Candidate: Sendable {
        let id: String
        let micros: Int64
    }

    /// Not yet decided, newest first.
    private var undecided: [Candidate]
    /// Listed by the account's timeline.
    private(set) var own: Set<String> = []
    /// Pages asked for so far.
    private(set) var reads = 0
    let maximumReads: Int
    private var lastCursor: Int64?

    /// `items`: ids and `created_at` as PRSNL gives them (`…+00:00` or `…Z`); an item without a
    /// readable time cannot be placed on the timeline and is never own.
    init(items: [(id: String, createdAt: String?)], maximumReads: Int = 8) {
        self.maximumReads = maximumReads
        undecided = items.compactMap { item in
            item.createdAt.flatMap(PRSNLCursor.micros).map { Candidate(id: item.id.lowercased(), micros: $0) }
        }.sorted { $0.micros > $1.micros }
    }

    /// Whether `id` was listed by the account's timeline.
    func isOwn(_ id: String) -> Bool { own.contains(id.lowercased()) }

    /// Whether every item is decided (none left to read for).
    var isDone: Bool { undecided.isEmpty }

    /// The `cursor` of the next timeline page to read (`limit` ``pageSize``), or nil when the walk
    /// is over.
    mutating func nextCursor() -> String? {
        guard reads < maximumReads, let newest = undecided.first else { return nil }
        let cursor = newest.micros + 1
        guard cursor != lastCursor else { return nil }
        lastCursor = cursor
        reads += 1
        return Civil.isoString(cursor) + "Z"
    }

    /// Takes the page read at the last ``nextCursor()``: its rows' ids and `createdAt`, newest
    /// first.
    mutating func read(page rows: [(id: String, createdAt: String?)]) {
        let listed = Set(rows.map { $0.id.lowercased() })
        for candidate in undecided where listed.contains(candidate.id) { own.insert(candidate.id) }
        let full = rows.count >= Self.pageSize
        guard full else {
            undecided = []
            return
        }
        // Rows are newest first; the last one bounds what this page decided.
        let floor = rows.compactMap { $0.createdAt.flatMap(PRSNLCursor.micros) }.min() ?? Int64.max
        undecided.removeAll { listed.contains($0.id) || $0.micros > floor }
    }
}
