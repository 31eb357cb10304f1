import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing

@testable import Cache

/// Group commit: entries that arrive while a transaction is on its way are written together in
/// the next one (`CacheWriteBatching`, driven by `CacheDatabase.store`).
struct CacheWriteBatchingTests {
    @Test func theFirstArrivalStartsTheWriterAndLaterOnesJoinItsNextBatch() {
        var batching = CacheWriteBatching<String>(limit: 64)
        #expect(batching.enqueue("a") == .startWriter)
        #expect(batching.enqueue("b") == .joinNextBatch)
        #expect(batching.enqueue("c") == .joinNextBatch)
        #expect(batching.nextBatch() == ["a", "b", "c"])
        #expect(batching.enqueue("d") == .joinNextBatch, "the writer is still running")
        #expect(batching.nextBatch() == ["d"])
        #expect(batching.nextBatch() == nil)
        #expect(!batching.writing)
        #expect(batching.enqueue("e") == .startWriter, "a stopped writer is started again")
        #expect(batching.accepted == 5)
    }

    @Test func aBatchTakesAtMostItsLimitOldestFirst() {
        var batching = CacheWriteBatching<Int>(limit: 2)
        for item in 1...5 { _ = batching.enqueue(item) }
        #expect(batching.nextBatch() == [1, 2])
        #expect(batching.nextBatch() == [3, 4])
        #expect(batching.nextBatch() == [5])
        #expect(batching.nextBatch() == nil)
    }

    /// Counts the transactions that changed `cache_entry`.
    final class CommitCounter: TransactionObserver, Sendable {
        let commits = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "cache_entry" }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    static func entry(_ index: Int, now: Date) -> CacheDatabase.StoredEntry {
        CacheDatabase.StoredEntry(
            key: "p|op|\(index)", profile: "p", operation: "op", arguments: [:],
            value: CacheValue(body: Data("{\"n\":\(index)}".utf8), meta: nil),
            windows: EntryWindows(
                fetchedAt: now, freshUntil: now + 60, revalidateUntil: now + 120, expiresAt: now + 3600))
    }

    /// Holds GRDB's writer (as a transaction on its way does) until `release`; `during` runs on
    /// the writer first.
    static func holdWriter(_ database: CacheDatabase, during: @escaping @Sendable (Database) throws -> Void = { _ in })
        -> DispatchSemaphore
    {
        let release = DispatchSemaphore(value: 0)
        database.pool.asyncWriteWithoutTransaction { db in
            try? during(db)
            release.wait()
        }
        return release
    }

    /// Waits (at most 10 s) until `count` entries have been handed to `store`.
    static func waitForArrivals(_ database: CacheDatabase, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while database.storesAccepted < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(database.storesAccepted == count)
    }

    @Test func entriesThatMeetAreWrittenInOneTransaction() async throws {
        let folder = ScratchFolder()
        let database = try CacheDatabase(stateDirectory: folder.path)
        let counter = CommitCounter()
        database.pool.add(transactionObserver: counter, extent: .observerLifetime)
        let now = Date()
        let release = Self.holdWriter(database)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { try await database.store(Self.entry(index, now: now), maxBytes: 1 << 20, now: now) }
            }
            try await Self.waitForArrivals(database, 20)
            release.signal()
            try await group.waitForAll()
        }
        let rows = try await database.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM cache_entry") }
        #expect(rows == 20)
        // The writer took the first arrivals before the others came; every later one waited for
        // the next transaction. One at a time would be 20.
        #expect(counter.commits.withLock { $0 } <= 2)
    }

    @Test func aFailedBatchFailsEachOfItsEntriesAndTheNextIsWritten() async throws {
        let folder = ScratchFolder()
        let database = try CacheDatabase(stateDirectory: folder.path)
        let now = Date()
        // The database refuses writes (as a read-only disk does) while the batch waits.
        let release = Self.holdWriter(database) { try $0.execute(sql: "PRAGMA query_only = ON") }
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<5 {
                group.addTask {
                    do {
                        try await database.store(Self.entry(index, now: now), maxBytes: 1 << 20, now: now)
                        return false
                    } catch {
                        return true
                    }
                }
            }
            try? await Self.waitForArrivals(database, 5)
            release.signal()
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 5)
        #expect(!database.storageHealth.writable)
        try await database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = OFF") }
        try await database.store(Self.entry(9, now: now), maxBytes: 1 << 20, now: now)
        #expect(database.storageHealth.writable)
        let rows = try await database.pool.read { try String.fetchAll($0, sql: "SELECT key FROM cache_entry") }
        #expect(rows == ["p|op|9"])
    }
}
