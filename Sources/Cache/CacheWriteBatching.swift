/// Group commit for cache entries, as a pure machine: an entry that arrives while a
/// transaction is on its way waits for the next one, and that next transaction takes every
/// entry waiting by then (up to `limit`). A cold day's sections end within a few milliseconds of
/// one another; one transaction for those that meet saves a commit (a WAL append, its locks and
/// two thread hops) per section, and a card-backed box as many writes.
///
/// `CacheDatabase.store` drives it: `enqueue` says whether the caller starts the writer (none is
/// running) or joins the next batch; the writer asks `nextBatch` until it answers nil, which
/// also marks it stopped, so the next `enqueue` starts a writer again.
struct CacheWriteBatching<Item> {
    /// What an arriving item does.
    enum EnqueueAction: Equatable {
        /// No writer is running: start one (it takes this item in its first batch).
        case startWriter
        /// A writer is running: it takes this item in a later batch.
        case joinNextBatch
    }

    /// The most items one transaction takes; the rest wait for the next.
    let limit: Int
    private(set) var pending: [Item] = []
    private(set) var writing = false
    /// Items accepted since the start (for tests that wait until every writer has arrived).
    private(set) var accepted = 0

    init(limit: Int) {
        precondition(limit > 0, "a batch holds at least one item")
        self.limit = limit
    }

    mutating func enqueue(_ item: Item) -> EnqueueAction {
        pending.append(item)
        accepted += 1
        if writing { return .joinNextBatch }
        writing = true
        return .startWriter
    }

    /// The next batch, oldest first; nil when nothing waits, and the writer stops.
    mutating func nextBatch() -> [Item]? {
        guard !pending.isEmpty else {
            writing = false
            return nil
        }
        guard pending.count > limit else {
            defer { pending = [] }
            return pending
        }
        let batch = Array(pending.prefix(limit))
        pending.removeFirst(limit)
        return batch
    }
}
