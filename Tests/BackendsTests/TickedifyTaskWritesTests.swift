import Foundation
import Model
import Testing

@testable import Backends

/// The decisions of the Tickedify task writes, without sockets: the ids they accept, the bodies
/// they send, what Tickedify's answers mean, what each write drops from the cache.
@Suite("Tickedify task writes")
struct TickedifyTaskWritesTests {
    /// The answer's body of the recorded exchange whose file name starts with `prefix`
    /// (`Tests/Fixtures/recordings/tickedify/exchanges`, the real server).
    static func recordedBody(_ prefix: String) throws -> JSONValue {
        let exchanges = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/recordings/tickedify/exchanges")
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: exchanges.path).first { $0.hasPrefix(prefix) })
        let exchange = try JSONValue(parsing: Data(contentsOf: exchanges.appendingPathComponent(name)))
        return try JSONValue(parsing: Data(try #require(exchange["response"]?["body"]?.stringValue).utf8))
    }

    @Test func idsWithASlashWhiteSpaceOrControlCharactersAreRefused() {
        for id in ["task_1763884800000_k3x9q2m7a", "7h2kq9x1z0mhn4b2c", "42", "task.é"] {
            #expect(throws: Never.self) { try TickedifyTaskWrites.checkID(id, name: "id") }
        }
        for id in ["task/1", "..\\x", "task 1", "task\t1", "task\u{0}1", "a\u{2028}b", "\n"] {
            #expect(throws: WriteRefusal.self) { try TickedifyTaskWrites.checkID(id, name: "id") }
        }
    }

    /// The recorded plans of one day (`Tests/Fixtures/recordings/tickedify`): Anna's (021) and
    /// Bob's (074). A slot is removed only when the profile's own plan of the day lists it.
    @Test func aSlotIsOnlyRemovedWhenTheProfilesPlanOfThatDayHasIt() throws {
        let body = Self.recordedBody
        let annasPlan = try body("021-")
        #expect(try TickedifyTaskWrites.planHolds(annasPlan, itemID: "7neymhxpmmwxu3dw4"))
        // Bob's slot (made in 020) is in his plan, not in Anna's.
        #expect(try !TickedifyTaskWrites.planHolds(annasPlan, itemID: "sxnibuf38mwxu3dx0"))
        #expect(try TickedifyTaskWrites.planHolds(try body("074-"), itemID: "sxnibuf38mwxu3dx0"))
        #expect(try !TickedifyTaskWrites.planHolds(try body("022-"), itemID: "7neymhxpmmwxu3dw4"))
        #expect(throws: BackendError.self) { try TickedifyTaskWrites.planHolds(.object([:]), itemID: "x") }

        #expect(try TickedifyTaskWrite.requestedDay(WriteRequest()) == nil)
        #expect(
            try TickedifyTaskWrite.requestedDay(WriteRequest(query: ["date": "2026-11-27"]))
                == LocalDate(year: 2026, month: 11, day: 27))
        for bad in ["27-11-2026", "2026-02-30", "", "2026-11-27T00:00:00Z"] {
            #expect(throws: WriteRefusal.self, "\(bad)") {
                try TickedifyTaskWrite.requestedDay(WriteRequest(query: ["date": bad]))
            }
        }
        #expect(TickedifyTaskWrite(.remove).queryNames == ["date"])
        #expect(TickedifyTaskWrite(.replan).queryNames.isEmpty)
    }

    /// The real server answers `afgewerkte-taken` from its archive as the rows were archived:
    /// `lijst` still `acties` or `inbox`, snake_case keys (recorded, 039). daygate's completed
    /// tasks are on the list `afgewerkt`, with their project, context and pattern.
    @Test func recordedCompletedTasksAreOnTheCompletedList() throws {
        let answer = try Self.recordedBody("039-")
        let zone = TimeZone(identifier: "Europe/Amsterdam")!
        let done = try TickedifyCompletedOperation.completed(
            answer, on: LocalDate(year: 2026, month: 11, day: 26), zone: zone)
        #expect(!done.isEmpty)
        #expect(done.allSatisfy { $0.list == "afgewerkt" }, "\(done.map(\.list))")
        #expect(answer.arrayValue?.contains { $0["lijst"] == .string("acties") } == true, "the recording as described")
        let recurring = try TickedifyCompletedOperation.completed(
            Self.recordedBody("050-"), on: LocalDate(year: 2026, month: 11, day: 26), zone: zone)
        #expect(recurring.contains { $0.recurrence == "weekly-1-4" && $0.list == "afgewerkt" })
    }

    @Test func theCompletionTakesTheCheckboxBranchWithAUTCTimestampInMilliseconds() throws {
        let stamp = TickedifyTaskWrites.timestamp(Date(timeIntervalSince1970: 1_795_000_000.5))
        #expect(stamp == "2026-11-18T11:06:40.500Z")
        let body = TickedifyTaskWrites.completionBody(stamp)
        #expect(
            String(decoding: try JSONCoding.encode(body), as: UTF8.self)
                == #"{"afgewerkt":"2026-11-18T11:06:40.500Z","completedViaCheckbox":true,"lijst":"afgewerkt"}"#)
    }

    @Test func theReorderAlwaysSendsTargetPositionNullForTheEnd() throws {
        let end = String(
            decoding: try JSONCoding.encode(TickedifyTaskWrites.reorderBody(PlanMove(hour: 14, position: nil))),
            as: UTF8.self)
        #expect(end == #"{"targetPosition":null,"targetUur":14}"#)
        let first = String(
            decoding: try JSONCoding.encode(TickedifyTaskWrites.reorderBody(PlanMove(hour: 0, position: 0))),
            as: UTF8.self)
        #expect(first == #"{"targetPosition":0,"targetUur":0}"#)
    }

    @Test func aMoveIsAnHourOfTheDayAndAnOptionalPosition() throws {
        #expect(try PlanMove(json: .object(["hour": .int(23)])) == PlanMove(hour: 23, position: nil))
        #expect(try PlanMove(json: .object(["hour": .int(0), "position": .null])) == PlanMove(hour: 0, position: nil))
        #expect(try PlanMove(json: .object(["hour": .int(9), "position": .int(2)])) == PlanMove(hour: 9, position: 2))
        for bad: JSONValue in [
            .object([:]), .object(["hour": .int(24)]), .object(["hour": .int(-1)]), .object(["hour": .string("9")]),
            .object(["hour": .double(9.5)]), .object(["hour": .int(9), "position": .int(-1)]),
            .object(["hour": .int(9), "position": .string("1")]), .array([]),
        ] {
            #expect(throws: WriteRefusal.self, "\(bad)") { try PlanMove(json: bad) }
        }
    }

    @Test func tickedifysRefusalsOfACompletion() throws {
        let gone = TickedifyTaskWrites.completionRefusal(
            status: 404, body: .object(["code": .string("TASK_NOT_FOUND")]), id: "task_1")
        #expect(gone?.status == 404)
        #expect(gone?.code == "not_found")
        #expect(gone?.message.contains("completed already or deleted") == true)
        let done = TickedifyTaskWrites.completionRefusal(
            status: 400, body: .object(["code": .string("INVALID_TASK_STATE")]), id: "task_1")
        #expect(
            done
                == WriteRefusal(
                    status: 409, code: "already_completed", message: "Tickedify says task task_1 is completed already"))
        // Another 400 (VALIDATION_ERROR) or a 500 is the backend's error, not a refusal of the gateway's.
        #expect(
            TickedifyTaskWrites.completionRefusal(
                status: 400, body: .object(["code": .string("VALIDATION_ERROR")]), id: "task_1") == nil)
        #expect(TickedifyTaskWrites.completionRefusal(status: 500, body: nil, id: "task_1") == nil)
    }

    @Test func theNextOccurrenceComesFromTheAnswer() throws {
        #expect(
            try TickedifyTaskWrites.nextTaskID(
                .object(["success": .bool(true), "new_recurring_taak_id": .string("task_2")])) == "task_2")
        #expect(try TickedifyTaskWrites.nextTaskID(.object(["success": .bool(true)])) == nil)
        #expect(throws: BackendError.self) { try TickedifyTaskWrites.nextTaskID(.object(["success": .bool(false)])) }
        #expect(throws: BackendError.self) { try TickedifyTaskWrites.nextTaskID(nil) }
    }

    @Test func whatEachWriteDeclares() {
        let writes = TickedifyBackend().writes.compactMap { $0 as? TickedifyTaskWrite }
        #expect(writes.map(\.kind) == [.complete, .reopen, .replan, .remove])
        #expect(
            writes.map { "\($0.method.rawValue) \($0.path)" } == [
                "POST /v1/tasks/{id}/complete", "POST /v1/tasks/{id}/reopen", "PUT /v1/plan/items/{id}",
                "DELETE /v1/plan/items/{id}",
            ])
        #expect(writes.map(\.honoursIdempotencyKey) == [true, true, false, false])
        #expect(writes.map(\.fields) == [[], [], ["hour", "position"], nil])
    }
}
