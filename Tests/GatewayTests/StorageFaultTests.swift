import Foundation
import GRDB
import Gateway
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import Testing

@testable import Cache

/// Writes stay exactly-once when the state folder fails, and reads keep working: a full disk
/// (SQLite's `max_page_count`, the file filled up to it), storage that refuses writes (a
/// read-only connection), and a database locked by another process — each before the write
/// is sent and after the backend has done it. After each fault clears, everything is normal.
/// (A `kill -9` between the backend's answer and the record: Tests/Durability.)
@Suite("Writes under storage faults", .serialized)
struct StorageFaultTests {
    static let json: HTTPFields = [.contentType: "application/json"]
    static let key = HTTPField.Name("Idempotency-Key")!
    static let addToInbox = "POST /api/taak/add-to-inbox"

    static func add(_ client: some TestClientProtocol, _ title: String, key: String) async throws -> TestResponse {
        var headers = json
        headers[Self.key] = key
        return try await client.execute(
            uri: "/v1/tasks", method: .post, headers: headers, body: ByteBuffer(string: #"{"title":"\#(title)"}"#)
        )
    }

    /// How many times `title` is in the Tickedify inbox (read afresh from the simulator).
    static func inInbox(_ client: some TestClientProtocol, _ title: String) async throws -> Int {
        let inbox = try await client.execute(
            uri: "/v1/tasks?list=inbox", method: .get, headers: [.cacheControl: "no-cache"]
        ).json
        return WriteTests.titles(inbox, "tasks").filter { $0 == title }.count
    }

    /// Makes every write to the database fail (`PRAGMA query_only` on its one writer
    /// connection) — what a read-only state folder does — or take writes again.
    static func refuseWrites(_ database: CacheDatabase, _ refuse: Bool) async throws {
        try await database.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA query_only = \(refuse ? "ON" : "OFF")")
        }
    }

    static func readiness(_ client: some TestClientProtocol) async throws -> JSONValue {
        try await client.execute(uri: "/readyz", method: .get).json
    }

    @Test func aWriteWhoseKeyCannotBeReservedIsNotSentAndSaysSo() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                _ = try await client.execute(uri: "/v1/today", method: .get)
                try await Self.refuseWrites(demo.runtime.database, true)
                let sentBefore = demo.calls(.tickedify, Self.addToInbox)
                let refused = try await Self.add(client, "Niet dubbel", key: "storage-1")
                #expect(refused.status == .serviceUnavailable)
                #expect(try refused.json["error"]?["code"] == .string("storage_unavailable"))
                let message = try refused.json["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains("read-only"), "\(message)")
                #expect(refused.headers[.retryAfter] == "30")
                #expect(demo.calls(.tickedify, Self.addToInbox) == sentBefore, "nothing may be sent")
                // Reads keep working, and the gateway says what is wrong.
                let today = try await client.execute(uri: "/v1/today", method: .get)
                #expect(today.status == .ok)
                let ready = try await Self.readiness(client)
                #expect(ready["status"] == .string("degraded"))
                #expect(ready["storage"]?["writable"] == .bool(false))
                let sources = try await client.execute(uri: "/v1/sources", method: .get).json
                #expect(sources["storage"]?["writable"] == .bool(false))

                // The fault clears: the same key writes once, then replays.
                try await Self.refuseWrites(demo.runtime.database, false)
                let created = try await Self.add(client, "Niet dubbel", key: "storage-1")
                #expect(created.status == .created)
                let again = try await Self.add(client, "Niet dubbel", key: "storage-1")
                #expect(again.status == .created)
                #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
                #expect(try await Self.inInbox(client, "Niet dubbel") == 1)
                #expect(try await Self.readiness(client)["status"] == .string("ready"))
            }
        }
    }

    /// The issue's reproduction: a full disk. The write is refused before it is sent, as
    /// often as it is retried; once there is room it is done exactly once.
    @Test func onAFullDiskAKeyNeverCreatesTwice() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                _ = try await client.execute(uri: "/v1/today", method: .get)
                let pool = demo.runtime.database.pool
                try await pool.write { db in
                    let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                    try db.execute(sql: "PRAGMA max_page_count = \(pages + 2)")
                }
                // Fill every page there is, the idempotency keys' own too: big rows, then ever
                // smaller ones into what is left of each page.
                var number = 0
                for size in [300, 40, 1] {
                    do {
                        while number < 100_000 {
                            number += 1
                            try await pool.write { [number] db in
                                try db.execute(
                                    sql:
                                        "INSERT INTO idempotent_answer (profile, key, request_hash, state, status, body, created_at) VALUES ('filler', ?, '', 'answered', 200, zeroblob(?), ?)",
                                    arguments: ["filler-\(number)", size, Date().timeIntervalSince1970]
                                )
                            }
                        }
                        Issue.record("the database never filled up")
                    } catch {}
                }
                for _ in 0..<2 {
                    let refused = try await Self.add(client, "Schijf vol", key: "diskfull-abc-123")
                    #expect(refused.status == .serviceUnavailable)
                    let message = try refused.json["error"]?["message"]?.stringValue ?? ""
                    #expect(message.contains("full"), "\(message)")
                }
                #expect(try await Self.inInbox(client, "Schijf vol") == 0)
                #expect(try await client.execute(uri: "/v1/today", method: .get).status == .ok)

                try await pool.write { db in
                    try db.execute(sql: "DELETE FROM idempotent_answer WHERE profile = 'filler'")
                    try db.execute(sql: "PRAGMA max_page_count = 1073741823")
                }
                #expect(try await Self.add(client, "Schijf vol", key: "diskfull-abc-123").status == .created)
                #expect(try await Self.add(client, "Schijf vol", key: "diskfull-abc-123").status == .created)
                #expect(try await Self.inInbox(client, "Schijf vol") == 1)
            }
        }
    }

    /// The backend did the write, then the answer could not be recorded: the client still gets
    /// the backend's success (with a warning), and the key answers retries with "outcome
    /// unknown" instead of writing again.
    @Test func aWriteDoneButNotRecordedStillAnswersItsSuccess() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                _ = try await client.execute(uri: "/v1/tasks?list=inbox", method: .get)  // logged in
                _ = try await demo.call(.tickedify, .POST, "/_sim/faults", json: #"{"latency_ms":800}"#)
                async let answer = Self.add(client, "Wel gedaan", key: "record-fails")
                // Once the key is reserved (the write is on its way), storage stops taking writes.
                let database = demo.runtime.database
                for _ in 0..<200 {
                    let state = try await database.pool.read { db in
                        try String.fetchOne(db, sql: "SELECT state FROM idempotent_answer WHERE key = 'record-fails'")
                    }
                    if state == "reserved" { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await Self.refuseWrites(database, true)
                let done = try await answer
                try await Self.refuseWrites(database, false)
                _ = try await demo.call(.tickedify, .POST, "/_sim/faults", json: "{}")

                #expect(done.status == .created, "\(String(buffer: done.body))")
                #expect(done.headers[HTTPField.Name("Daygate-Warning")!]?.contains("could not record") == true)
                let retry = try await Self.add(client, "Wel gedaan", key: "record-fails")
                #expect(retry.status == .conflict)
                #expect(try retry.json["error"]?["code"] == .string("idempotency_outcome_unknown"))
                #expect(try await Self.inInbox(client, "Wel gedaan") == 1)
            }
        }
    }

    /// Another process holds the database's write lock past the busy wait (1 s): refused before
    /// sending; a write without a key (nothing to record) goes through and tells the truth.
    @Test func aLockedDatabaseRefusesKeyedWritesAndKeepsReadsAndPlainWrites() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                _ = try await client.execute(uri: "/v1/today", method: .get)
                _ = try await client.execute(uri: "/v1/tasks?list=inbox", method: .get)  // cached, in SQLite too
                let other = try DatabaseQueue(path: demo.runtime.database.path)
                let locked = Task {
                    try await other.writeWithoutTransaction { db in
                        try db.execute(sql: "BEGIN EXCLUSIVE")
                        Thread.sleep(forTimeInterval: 4)  // past the gateway's busy wait (1 s), several times
                        try db.execute(sql: "COMMIT")
                    }
                }
                try await Task.sleep(for: .milliseconds(200))
                let sentBefore = demo.calls(.tickedify, Self.addToInbox)
                let refused = try await Self.add(client, "Op slot", key: "locked-1")
                #expect(refused.status == .serviceUnavailable)
                let message = try refused.json["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains("locked"), "\(message)")
                #expect(demo.calls(.tickedify, Self.addToInbox) == sentBefore)
                #expect(try await client.execute(uri: "/v1/today", method: .get).status == .ok)
                // Without a key there is nothing to record: the write is done, and the invalidation
                // that cannot reach SQLite still keeps the old inbox from being served.
                let plain = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: Self.json,
                    body: ByteBuffer(string: #"{"title":"Zonder sleutel"}"#)
                )
                #expect(plain.status == .created)
                let inbox = try await client.execute(uri: "/v1/tasks?list=inbox", method: .get).json
                #expect(WriteTests.titles(inbox, "tasks").contains("Zonder sleutel"), "the next read shows the write")
                try await locked.value
                #expect(try await Self.add(client, "Op slot", key: "locked-1").status == .created)
                #expect(try await Self.inInbox(client, "Op slot") == 1)
            }
        }
    }
}
