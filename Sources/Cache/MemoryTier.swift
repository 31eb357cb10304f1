import Foundation

/// The hot tier in front of SQLite: entry bodies by key, bounded by bytes, least
/// recently used evicted first. Not thread-safe: owned by `CacheStore`.
struct MemoryTier {
    struct Item {
        var value: CacheValue
        var windows: EntryWindows
        var lastUse: UInt64
    }

    private(set) var items: [CacheKey: Item] = [:]
    private(set) var bytes = 0
    private var clock: UInt64 = 0
    let maxBytes: Int

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    mutating func get(_ key: CacheKey) -> Item? {
        guard var item = items[key] else { return nil }
        clock += 1
        item.lastUse = clock
        items[key] = item
        return item
    }

    mutating func put(_ key: CacheKey, value: CacheValue, windows: EntryWindows) {
        clock += 1
        if let old = items[key] { bytes -= old.value.size + key.storageKey.utf8.count }
        items[key] = Item(value: value, windows: windows, lastUse: clock)
        bytes += value.size + key.storageKey.utf8.count
        if bytes > maxBytes { evict() }
    }

    mutating func remove(_ key: CacheKey) {
        if let old = items.removeValue(forKey: key) { bytes -= old.value.size + key.storageKey.utf8.count }
    }

    mutating func removeAll() {
        items.removeAll()
        bytes = 0
    }

    /// Drops the least recently used items until the tier is at 90 % of its budget.
    private mutating func evict() {
        let target = maxBytes * 9 / 10
        for (key, _) in items.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where bytes > target {
            remove(key)
        }
    }
}
