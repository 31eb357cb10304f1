/// When a batch of cache writes also trims the store (drops expired entries, then evicts the
/// oldest beyond the cap), as a pure machine: the first batch after opening, the first after a
/// failed one, and then whenever the bytes written since the last trim reach `1/marginDivisor`
/// of the cap (400 KB of the default 100 MB). The store so stays within its cap plus that margin,
/// and a cold day's sections, a few KB each, do not each pay a scan of the table. Expired
/// entries left until then are never served (a read asks for an unexpired row).
struct CacheTrimSchedule {
    /// The margin over the cap, as a part of it.
    static let marginDivisor = 256

    private var trimmed = false
    private(set) var writtenSinceTrim = 0

    /// Whether the batch that writes `bytes` trims too; when it does, the count starts again.
    mutating func batch(writing bytes: Int, maxBytes: Int) -> Bool {
        writtenSinceTrim += bytes
        guard !trimmed || writtenSinceTrim >= max(1, maxBytes / Self.marginDivisor) else { return false }
        trimmed = true
        writtenSinceTrim = 0
        return true
    }

    /// A batch failed (whether it trimmed or not): the next one trims.
    mutating func batchFailed() {
        trimmed = false
    }
}
