import Foundation
import GRDB
import Testing

@testable import Cache

/// `CacheDatabase` says whether writes reach the disk (`storageHealth`), and stands in with a
/// temporary folder when the state folder cannot be opened, instead of keeping the gateway from
/// starting.
struct StorageHealthTests {
    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("daygate-health-\(UUID().uuidString)").path
    }

    @Test func aStateFolderThatCannotBeOpenedIsStoodInFor() async throws {
        // A file where the folder should be: it cannot be created (as on a read-only disk).
        let blocked = Self.folder()
        #expect(FileManager.default.createFile(atPath: blocked, contents: Data("not a folder".utf8)))
        defer { try? FileManager.default.removeItem(atPath: blocked) }
        #expect(throws: (any Error).self) { try CacheDatabase(stateDirectory: blocked) }

        let database = try CacheDatabase.openingOrStandingIn(stateDirectory: blocked)
        defer { try? FileManager.default.removeItem(atPath: (database.path as NSString).deletingLastPathComponent) }
        #expect(database.path.hasPrefix(blocked) == false)
        #expect(database.storageHealth.temporary?.contains(blocked) == true)
        #expect(!database.storageHealth.healthy)
        // It takes writes all the same.
        _ = try await database.reserveIdempotencyKey(profile: "p", key: "k", requestHash: "h", maximumAge: 60)
        #expect(database.storageHealth.writable)
    }

    @Test func writesThatFailAreReportedUntilOneSucceeds() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CacheDatabase.openingOrStandingIn(stateDirectory: folder)
        #expect(database.storageHealth.healthy)
        try await database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = ON") }
        await #expect(throws: (any Error).self) {
            try await database.reserveIdempotencyKey(profile: "p", key: "k", requestHash: "h", maximumAge: 60)
        }
        #expect(!database.storageHealth.writable)
        #expect(database.storageHealth.lastFailure?.reason == "the state folder is read-only")
        try await database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = OFF") }
        _ = try await database.reserveIdempotencyKey(profile: "p", key: "k", requestHash: "h", maximumAge: 60)
        #expect(database.storageHealth.writable)
        #expect(database.storageHealth.lastFailure != nil, "the last failure stays on record")
    }
}
