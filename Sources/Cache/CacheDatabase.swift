import Foundation
import GRDB
import Model
import Synchronization

/// The durable tier: one SQLite file in WAL mode (GRDB `DatabasePool`), created with mode
/// 0600 inside a 0700 state folder. Survives restarts and `kill -9`.
public final class CacheDatabase: Sendable {
    public let path: String
    /// Reads are synchronous (`pool.read { … }` without `await`), short, and never hold a
    /// reader connection across a suspension. Every task runs on NIO's few event loops (the
    /// concurrency executor), so a synchronous read that waits for a free reader blocks a loop;
    /// GRDB's `async` read keeps its reader until its task is scheduled again, possibly on that
    /// very loop. With all readers held that way the process hung (`CacheDatabaseOneThreadTests`).
    /// Writes are `async` (GRDB's writer queue does the work; no reader is involved).
    let pool: DatabasePool
    private let health = Mutex<StorageHealth>(StorageHealth())
    private let storeQueue = Mutex(CacheWriteBatching<PendingStore>(limit: CacheDatabase.storeBatchLimit))
    private let trimSchedule = Mutex(CacheTrimSchedule())

    /// One row of `cache_entry`.
    public struct StoredEntry: Sendable, Equatable {
        /// The storage key (`CacheKey.storageKey`).
        public var key: String
        /// The profile whose entry it is.
        public var profile: String
        /// The backend operation it is an answer of.
        public var operation: String
        /// The entry's typed arguments; nil for a row written before they were stored
        /// (migration `v5-entry-arguments`).
        public var arguments: [String: ArgumentValue]?
        /// The normalised body and its metadata.
        public var value: CacheValue
        /// When it was fetched, and until when it is fresh, revalidated and kept.
        public var windows: EntryWindows

        /// The row for `key`'s entry.
        public init(key: CacheKey, value: CacheValue, windows: EntryWindows) {
            self.init(
                key: key.storageKey, profile: key.profile, operation: key.operation, arguments: key.arguments,
                value: value, windows: windows)
        }

        init(
            key: String, profile: String, operation: String, arguments: [String: ArgumentValue]?, value: CacheValue,
            windows: EntryWindows
        ) {
            self.key = key
            self.profile = profile
            self.operation = operation
            self.arguments = arguments
            self.value = value
            self.windows = windows
        }
    }

    /// An entry's storage key with its typed arguments, for invalidation.
    public struct EntryArguments: Sendable, Equatable {
        /// The storage key (`CacheKey.storageKey`).
        public var key: String
        /// Nil for a row written before arguments were stored: invalidation drops such a row
        /// whatever its predicate (see migration `v5-entry-arguments`).
        public var arguments: [String: ArgumentValue]?
    }

    public struct Stats: Sendable, Codable, Equatable {
        public var entries: Int
        public var bytes: Int
        public var profiles: [String: Int]
        public var operations: [String: Int]
    }

    /// The database in `stateDirectory`; when it cannot be opened for writing (a read-only or
    /// full disk, no permission), one in a new private temporary folder stands in for it, so the
    /// gateway still serves — its `storageHealth` says why (`temporary`), and what it keeps is
    /// lost at the next start. A folder that is not safe to use (`StateFolderRefusal`: another
    /// user's, writable by others, a link someone else made) is not stood in for: the error
    /// goes to the caller, and the gateway does not start until the folder is fixed.
    public static func openingOrStandingIn(stateDirectory: String) throws -> CacheDatabase {
        do {
            return try CacheDatabase(stateDirectory: stateDirectory)
        } catch let refusal as StateFolderRefusal {
            throw refusal
        } catch {
            let database = try CacheDatabase(stateDirectory: StateFolder.makeStandIn())
            let readOnly =
                FileManager.default.fileExists(atPath: stateDirectory)
                && !FileManager.default.isWritableFile(atPath: stateDirectory)
            let reason = readOnly ? "the state folder is read-only" : StorageHealth.describe(error)
            database.health.withLock {
                $0.standingIn(
                    because:
                        "\(reason) (\(stateDirectory) could not be opened): a temporary cache stands in until the next start"
                )
            }
            return database
        }
    }

    /// The database in `stateDirectory`, made 0700 when missing. Throws `StateFolderRefusal`
    /// when the folder or a database file in it belongs to another user, can be written by
    /// others, or is a link someone else made (`StateFolderCheck`).
    public init(stateDirectory: String) throws {
        let folder = try StateFolder.prepare(stateDirectory)
        let path = (folder as NSString).appendingPathComponent("cache.sqlite")
        // A failure is GRDB's to report, when it opens the file.
        try? StateFolder.createDatabaseFile(path)
        self.path = path
        var configuration = Configuration()
        // Another process holding the write lock (a backup, `daygate cache purge`) is waited for
        // a second; then the write fails softly (a cache entry kept in memory only, a keyed
        // write refused before it is sent) instead of holding up requests.
        configuration.busyMode = .timeout(1)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        self.pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-cache-entries") { db in
            try db.create(table: "cache_entry") { table in
                table.primaryKey("key", .text)
                table.column("profile", .text).notNull()
                table.column("operation", .text).notNull()
                table.column("body", .blob).notNull()
                table.column("size", .integer).notNull()
                table.column("fetched_at", .double).notNull()
                table.column("fresh_until", .double).notNull()
                table.column("revalidate_until", .double).notNull()
                table.column("expires_at", .double).notNull()
            }
            try db.create(index: "cache_entry_fetched_at", on: "cache_entry", columns: ["fetched_at"])
            try db.create(index: "cache_entry_expires_at", on: "cache_entry", columns: ["expires_at"])
        }
        migrator.registerMigration("v2-entry-meta-and-vault") { db in
            try db.alter(table: "cache_entry") { table in
                table.add(column: "meta", .blob)
            }
            try db.create(table: "credential") { table in
                table.column("profile", .text).notNull()
                table.column("backend", .text).notNull()
                table.column("name", .text).notNull()
                table.column("value", .text).notNull()
                table.column("updated_at", .double).notNull()
                table.primaryKey(["profile", "backend", "name"])
            }
        }
        migrator.registerMigration("v3-idempotency") { db in
            try db.create(table: "idempotent_answer") { table in
                table.column("profile", .text).notNull()
                table.column("key", .text).notNull()
                table.column("request_hash", .text).notNull()
                table.column("status", .integer).notNull()
                table.column("body", .blob).notNull()
                table.column("created_at", .double).notNull()
                table.primaryKey(["profile", "key"])
            }
        }
        migrator.registerMigration("v4-idempotency-reservations") { db in
            // A key is reserved before its write is sent, and answered after.
            try db.alter(table: "idempotent_answer") { table in
                table.add(column: "state", .text).notNull().defaults(to: IdempotencyRecord.State.answered.rawValue)
            }
        }
        migrator.registerMigration("v5-entry-arguments") { db in
            // Each entry's typed arguments (`StoredArguments`), so invalidation filters on them
            // instead of parsing storage keys. Rows already there keep `arguments` NULL: their
            // keys hold only the arguments' text, not their kinds, so they are not decoded;
            // an invalidation of their profile and operation drops them whatever its predicate
            // (a refetch at worst), and the next store of their key fills the column in.
            try db.alter(table: "cache_entry") { table in
                table.add(column: "arguments", .text)
            }
            try db.create(
                index: "cache_entry_profile_operation", on: "cache_entry", columns: ["profile", "operation"])
        }
        migrator.registerMigration("v6-gateway-id") { db in
            // The gateway's own id (`gatewayID()`), made once with the state folder: what Home
            // Assistant knows this gateway by, whatever address it has.
            try db.create(table: "gateway_identity") { table in
                table.column("id", .text).notNull()
            }
            try db.execute(sql: "INSERT INTO gateway_identity (id) VALUES (lower(hex(randomblob(16))))")
        }
        return migrator
    }

    /// The credential stored under `name` for `profile`'s `backend` (the vault), or nil.
    func credential(profile: String, backend: String, name: String) throws -> String? {
        try pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT value FROM credential WHERE profile = ? AND backend = ? AND name = ?",
                arguments: [profile, backend, name]
            )
        }
    }

    /// The entry stored under `key`, unless it has expired.
    public func entry(forKey key: String, now: Date) throws -> StoredEntry? {
        try pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM cache_entry WHERE key = ? AND expires_at > ?",
                    arguments: [key, now.timeIntervalSince1970]
                )
            else { return nil }
            return StoredEntry(
                key: row["key"], profile: row["profile"], operation: row["operation"],
                arguments: (row["arguments"] as String?).flatMap(StoredArguments.decode),
                value: CacheValue(body: row["body"], meta: row["meta"]),
                windows: EntryWindows(
                    fetchedAt: Date(timeIntervalSince1970: row["fetched_at"]),
                    freshUntil: Date(timeIntervalSince1970: row["fresh_until"]),
                    revalidateUntil: Date(timeIntervalSince1970: row["revalidate_until"]),
                    expiresAt: Date(timeIntervalSince1970: row["expires_at"])
                )
            )
        }
    }

    /// Writes the entry; now and then (`CacheTrimSchedule`) drops expired ones and evicts the
    /// oldest until the store is within `maxBytes`. Entries that arrive while a transaction is on
    /// its way are written together in the next one (`CacheWriteBatching`, at most
    /// `storeBatchLimit`). A batch succeeds or fails as one: an entry has no failure of its own
    /// (every column is bound, the key is upserted), so a failure is the database's (disk full,
    /// locked by another process) and each entry in the batch gets it.
    public func store(_ entry: StoredEntry, maxBytes: Int, now: Date) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let action = storeQueue.withLock {
                $0.enqueue(PendingStore(entry: entry, maxBytes: maxBytes, now: now, continuation: continuation))
            }
            if action == .startWriter {
                Task { await self.writeStores() }
            }
        }
    }

    /// The most entries one transaction writes.
    static let storeBatchLimit = 64

    /// An entry waiting for its transaction, and the writer waiting for it.
    struct PendingStore: Sendable {
        var entry: StoredEntry
        var maxBytes: Int
        var now: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// How many entries have been handed to `store` since the database was opened (tests wait
    /// for it).
    var storesAccepted: Int { storeQueue.withLock { $0.accepted } }

    /// The writer: one transaction per batch, until none waits.
    private func writeStores() async {
        while let batch = storeQueue.withLock({ $0.nextBatch() }) {
            let entries = batch.map(\.entry)
            let maxBytes = batch.map(\.maxBytes).min() ?? 0
            let now = batch.map(\.now).max() ?? Date()
            let bytes = entries.reduce(0) { $0 + Self.size(of: $1) }
            let trims = trimSchedule.withLock { $0.batch(writing: bytes, maxBytes: maxBytes) }
            do {
                try await write { db in
                    for entry in entries { try Self.insert(entry, db) }
                    if trims { try Self.trim(db, maxBytes: maxBytes, now: now) }
                }
                for pending in batch { pending.continuation.resume() }
            } catch {
                trimSchedule.withLock { $0.batchFailed() }
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
    }

    /// Every cold section ends here: the statements are prepared once per connection
    /// (`cachedStatement`), not parsed again on each write.
    private static func insert(_ entry: StoredEntry, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO cache_entry (key, profile, operation, arguments, body, meta, size, fetched_at, fresh_until, revalidate_until, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET arguments = excluded.arguments, body = excluded.body, meta = excluded.meta, size = excluded.size,
                  fetched_at = excluded.fetched_at, fresh_until = excluded.fresh_until, revalidate_until = excluded.revalidate_until,
                  expires_at = excluded.expires_at
                """
        ).execute(
            arguments: [
                entry.key, entry.profile, entry.operation, entry.arguments.map(StoredArguments.encode),
                entry.value.body, entry.value.meta, Self.size(of: entry),
                entry.windows.fetchedAt.timeIntervalSince1970, entry.windows.freshUntil.timeIntervalSince1970,
                entry.windows.revalidateUntil.timeIntervalSince1970, entry.windows.expiresAt.timeIntervalSince1970,
            ]
        )
    }

    /// Drops expired entries, then the oldest until the store is within `maxBytes`.
    private static func trim(_ db: Database, maxBytes: Int, now: Date) throws {
        try db.cachedStatement(sql: "DELETE FROM cache_entry WHERE expires_at <= ?").execute(
            arguments: [now.timeIntervalSince1970])
        var total = try Int.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(SUM(size), 0) FROM cache_entry")) ?? 0
        guard total > maxBytes else { return }
        let rows = try Row.fetchAll(db, sql: "SELECT key, size FROM cache_entry ORDER BY fetched_at ASC")
        for row in rows where total > maxBytes {
            let key: String = row["key"]
            try db.execute(sql: "DELETE FROM cache_entry WHERE key = ?", arguments: [key])
            total -= row["size"] as Int
        }
    }

    public func stats() throws -> Stats {
        try pool.read { db in
            let entries = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM cache_entry") ?? 0
            let bytes = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM cache_entry") ?? 0
            var profiles: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT profile, COUNT(*) AS n FROM cache_entry GROUP BY profile") {
                profiles[row["profile"]] = row["n"]
            }
            var operations: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT operation, COUNT(*) AS n FROM cache_entry GROUP BY operation")
            {
                operations[row["operation"]] = row["n"]
            }
            return Stats(entries: entries, bytes: bytes, profiles: profiles, operations: operations)
        }
    }

    /// Deletes every entry (or one profile's); returns how many were deleted.
    @discardableResult
    public func purge(profile: String? = nil) async throws -> Int {
        try await write { db in
            if let profile {
                try db.execute(sql: "DELETE FROM cache_entry WHERE profile = ?", arguments: [profile])
            } else {
                try db.execute(sql: "DELETE FROM cache_entry")
            }
            return db.changesCount
        }
    }

    /// The storage keys and typed arguments of `operation`'s entries for `profile`.
    public func entryArguments(profile: String, operation: String) throws -> [EntryArguments] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT key, arguments FROM cache_entry WHERE profile = ? AND operation = ?",
                arguments: [profile, operation]
            ).map { row in
                EntryArguments(
                    key: row["key"], arguments: (row["arguments"] as String?).flatMap(StoredArguments.decode))
            }
        }
    }

    /// Deletes the entries stored under `keys`. The deletion is queued before this first
    /// suspends, in the caller's isolation: a row stored under one of the keys by a write asked
    /// for after this call (a newer fetch) is written after the deletion, and kept.
    public func delete(keys: [String], isolation: isolated (any Actor)? = #isolation) async throws {
        guard !keys.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            pool.asyncWrite(
                { db in
                    for key in keys {
                        try db.execute(sql: "DELETE FROM cache_entry WHERE key = ?", arguments: [key])
                    }
                },
                completion: { _, result in
                    switch result {
                    case .success: self.health.withLock { $0.succeeded(at: Date()) }
                    case .failure(let error):
                        self.health.withLock { $0.failed(StorageHealth.describe(error), at: Date()) }
                    }
                    continuation.resume(with: result)
                })
        }
    }

    // MARK: - idempotency keys

    /// What the store holds for a write's `Idempotency-Key`: reserved before the write is sent,
    /// answered (status and JSON body) after it.
    public struct IdempotencyRecord: Sendable, Equatable {
        public enum State: String, Sendable {
            case reserved
            case answered
        }

        public var requestHash: String
        public var state: State
        public var status: Int
        public var body: Data
        public var createdAt: Date

        public init(requestHash: String, state: State, status: Int, body: Data, createdAt: Date) {
            self.requestHash = requestHash
            self.state = state
            self.status = status
            self.body = body
            self.createdAt = createdAt
        }
    }

    /// The record of `key`, or — when there is none younger than `maximumAge` — a reservation
    /// for `requestHash` made now (then nil), in one transaction, so that two reservations of a
    /// key cannot both succeed. Older records are deleted on the way.
    public func reserveIdempotencyKey(
        profile: String, key: String, requestHash: String, maximumAge: TimeInterval, now: Date = Date()
    ) async throws -> IdempotencyRecord? {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM idempotent_answer WHERE created_at < ?",
                arguments: [now.timeIntervalSince1970 - maximumAge])
            if let row = try Row.fetchOne(
                db,
                sql:
                    "SELECT request_hash, state, status, body, created_at FROM idempotent_answer WHERE profile = ? AND key = ?",
                arguments: [profile, key]
            ) {
                return IdempotencyRecord(
                    requestHash: row["request_hash"],
                    state: IdempotencyRecord.State(rawValue: row["state"]) ?? .answered,
                    status: row["status"], body: row["body"], createdAt: Date(timeIntervalSince1970: row["created_at"])
                )
            }
            try db.execute(
                sql:
                    "INSERT INTO idempotent_answer (profile, key, request_hash, state, status, body, created_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
                arguments: [
                    profile, key, requestHash, IdempotencyRecord.State.reserved.rawValue, Data(),
                    now.timeIntervalSince1970,
                ]
            )
            return nil
        }
    }

    /// The answer of the write reserved under `key`.
    public func recordIdempotentAnswer(profile: String, key: String, status: Int, body: Data) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE idempotent_answer SET state = ?, status = ?, body = ? WHERE profile = ? AND key = ?",
                arguments: [IdempotencyRecord.State.answered.rawValue, status, body, profile, key]
            )
        }
    }

    /// Frees a reservation whose write was not done, so a retry with the key sends it again.
    public func releaseIdempotencyKey(profile: String, key: String) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM idempotent_answer WHERE profile = ? AND key = ? AND state = ?",
                arguments: [profile, key, IdempotencyRecord.State.reserved.rawValue]
            )
        }
    }

    // MARK: - whether writes succeed

    /// Whether the last write reached the disk, and what the last failure was.
    public var storageHealth: StorageHealth {
        health.withLock { $0 }
    }

    /// Every write goes through here (never blocking a thread: GRDB's writer queue does the
    /// work), so `storageHealth` knows whether writes succeed.
    func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        do {
            let value = try await pool.write(body)
            health.withLock { $0.succeeded(at: Date()) }
            return value
        } catch {
            health.withLock { $0.failed(StorageHealth.describe(error), at: Date()) }
            throw error
        }
    }

    /// A cheap read: true when the database answers (for readiness probes).
    public func isReadable() -> Bool {
        (try? pool.read { db in try Int.fetchOne(db, sql: "SELECT 1 FROM cache_entry LIMIT 1") ?? 1 }) != nil
    }

    /// `PRAGMA integrity_check`: "ok" when the file is sound. Reads the whole file: not for probes.
    public func integrityCheck() throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }

    static func size(of entry: StoredEntry) -> Int {
        entry.value.size + entry.key.utf8.count + 64
    }
}
