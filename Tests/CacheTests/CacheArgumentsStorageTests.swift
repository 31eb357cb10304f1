import Foundation
import GRDB
import Model
import Testing

@testable import Cache

/// Each row keeps its entry's typed arguments, so invalidation filters on them and never
/// parses a storage key; rows from before the `arguments` column are still served, and are
/// dropped by any invalidation of their profile and operation.
@Suite("Cache arguments in SQLite")
struct CacheArgumentsStorageTests {
    static let day = LocalDate(year: 2026, month: 11, day: 22)

    func key(_ day: LocalDate) -> CacheKey {
        CacheKey(
            profile: "default", operation: "eightalls.events", arguments: ["from": .date(day), "to": .date(day)],
            credentialFingerprint: "none")
    }

    @Test func argumentsAreStoredAsTypedJSON() throws {
        #expect(StoredArguments.encode(["date": .date(Self.day)]) == #"{"date":{"date":"2026-11-22"}}"#)
        let arguments: [String: ArgumentValue] = [
            "list": .string("in/box \"x\""), "limit": .int(20), "all": .bool(false), "date": .date(Self.day),
        ]
        #expect(StoredArguments.decode(StoredArguments.encode(arguments)) == arguments)
        #expect(StoredArguments.encode([:]) == "{}")
        #expect(StoredArguments.decode("{}") == [:])
        #expect(StoredArguments.decode(#"{"date":{"date":"2026-13-01"}}"#) == nil)
        #expect(StoredArguments.decode(#"{"date":{"when":"2026-11-22"}}"#) == nil)
        #expect(StoredArguments.decode("not json") == nil)
    }

    /// Rows written before the arguments were written by hand hold `JSONEncoder`'s text: the
    /// hand-written text is the same, byte for byte (numbers and odd names in the keys too).
    @Test func argumentsTextIsTheEncodersText() throws {
        let arguments: [String: ArgumentValue] = [
            "list": .string("in/box \"x\" \u{1} één"), "limit": .int(-20), "all": .bool(false),
            "date": .date(Self.day), "a10": .int(1), "a2": .int(2), "B": .string(""), "_x": .bool(true),
            "past_days": .int(0), "Ä": .string("ü"),
        ]
        for count in 0...arguments.count {
            let subset = Dictionary(uniqueKeysWithValues: arguments.sorted { $0.key < $1.key }.prefix(count).map { $0 })
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let expected = try encoder.encode(subset.mapValues { [$0.kind.rawValue: $0.description] })
            #expect(StoredArguments.encode(subset) == String(decoding: expected, as: UTF8.self))
        }
    }

    @Test func aStoredEntryKeepsItsArguments() async throws {
        let cache = try CacheFixture()
        _ = await cache.lookup()
        let json = try await cache.store.database.pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT arguments FROM cache_entry WHERE key = ?", arguments: [CacheFixture.key.storageKey])
        }
        #expect(json == #"{"from":{"date":"2026-11-22"},"to":{"date":"2026-11-22"}}"#)
        let rows = try cache.store.database.entryArguments(profile: "default", operation: "eightalls.events")
        #expect(rows == [.init(key: CacheFixture.key.storageKey, arguments: CacheFixture.key.arguments)])
        #expect(try cache.store.database.entryArguments(profile: "anna", operation: "eightalls.events").isEmpty)
    }

    /// The predicate sees dates, in memory and in SQLite (after a restart, when nothing is in
    /// memory), and drops only what it matches.
    @Test func invalidationFiltersOnTypedArguments() async throws {
        let cache = try CacheFixture()
        let other = LocalDate(year: 2026, month: 11, day: 23)
        _ = await cache.lookup(key(Self.day))
        _ = await cache.lookup(key(other))
        let dropped = await cache.store.invalidate(profile: "default", operation: "eightalls.events") {
            $0["from"]?.date == Self.day
        }
        #expect(dropped == 1)
        #expect(await cache.lookup(key(other)).outcome == .fresh)
        #expect(await cache.lookup(key(Self.day)).outcome == .miss)
        #expect(cache.upstream.calls == 3)

        let restarted = try CacheFixture(folder: cache.folder, clock: cache.clock)
        let droppedAfterRestart = await restarted.store.invalidate(profile: "default", operation: "eightalls.events") {
            $0["from"]?.date == other
        }
        #expect(droppedAfterRestart == 1)
        #expect(await restarted.lookup(key(Self.day)).outcome == .fresh)
        #expect(await restarted.lookup(key(other)).outcome == .miss)
    }

    /// A database written before the migration: its row is found under the same storage key,
    /// its arguments are unknown (NULL), so any invalidation of its operation drops it; once
    /// stored anew it has typed arguments like any other.
    @Test func rowsFromBeforeTheMigrationAreServedAndDroppedByAnyInvalidation() async throws {
        let folder = ScratchFolder()
        let clock = TestClock()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        do {
            let pool = try DatabasePool(path: (folder.path as NSString).appendingPathComponent("cache.sqlite"))
            try CacheDatabase.migrator.migrate(pool, upTo: "v4-idempotency-reservations")
            let fetched = clock.now.timeIntervalSince1970
            try await pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO cache_entry (key, profile, operation, body, size, fetched_at, fresh_until, revalidate_until, expires_at)
                        VALUES (?, 'default', 'eightalls.events', ?, 100, ?, ?, ?, ?)
                        """,
                    arguments: [
                        "default|eightalls.events|from=2026-11-22&to=2026-11-22|none", Data("[0]".utf8), fetched,
                        fetched + 60, fetched + 120, fetched + 720,
                    ])
            }
        }
        let cache = try CacheFixture(folder: folder, clock: clock)
        let old = await cache.lookup()
        #expect(old.outcome == .fresh)
        #expect(old.body == Data("[0]".utf8))
        #expect(
            try cache.store.database.entryArguments(profile: "default", operation: "eightalls.events") == [
                .init(key: CacheFixture.key.storageKey, arguments: nil)
            ])

        let restarted = try CacheFixture(folder: folder, clock: clock)
        let dropped = await restarted.store.invalidate(profile: "default", operation: "eightalls.events") { _ in false }
        #expect(dropped == 1, "a row without arguments matches every predicate")
        #expect(await restarted.lookup().outcome == .miss)
        #expect(
            try restarted.store.database.entryArguments(profile: "default", operation: "eightalls.events") == [
                .init(key: CacheFixture.key.storageKey, arguments: CacheFixture.key.arguments)
            ])
        #expect(await restarted.store.invalidate(profile: "default", operation: "eightalls.events") { _ in false } == 0)
        #expect(await restarted.lookup().outcome == .fresh)
    }
}
