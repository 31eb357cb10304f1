import Backends
import Foundation
import Model
import Simulators
import Testing

/// The task writes' session rules against the simulator, which crashes on `PUT /api/taak/:id`
/// and the planning routes without a valid session: a write goes out only inside the trust
/// window or after `/api/auth/me`, once, and its failure ends the trust.
@Suite("Tickedify task writes and the session")
struct TickedifyTaskWritesSessionTests {
    typealias Trust = TickedifySessionTrustSimulatorTests
    static let me = Trust.me
    static let login = Trust.login

    /// The task of today's first task slot, and the id of another slot.
    static func plannedTask(_ f: Trust.Fixture, _ sessions: SessionRegistry) async throws -> (
        task: String, item: String
    ) {
        let output = try await TickedifyDailyPlanOperation().fetch(
            ["date": .date(LocalDate.today(in: Trust.zone))], context: f.context(sessions))
        let items = try JSONCoding.decoder.decode([PlanItem].self, from: output.body)
        let first = try #require(items.first { $0.kind == .task })
        let other = try #require(items.first { $0.taskID != first.taskID })
        return (try #require(first.taskID), other.id)
    }

    @Test func aWriteAfterTheServerForgotTheSessionChecksFirstAndNeverCrashesIt() async throws {
        try await Trust.withFixture { f in
            let sessions = f.restart()
            let (task, item) = try await Self.plannedTask(f, sessions)
            #expect(f.calls(Self.login) == 1)
            try await f.expireServerSessions()
            f.clock.advance(31)

            let done = try await TickedifyTaskWrites.complete(id: task, context: f.context(sessions))
            #expect(done.id == task)
            // Checked once, before the read of the list that tells whether the task recurs; the
            // login that followed proves the new session for the write itself.
            #expect(f.calls(Self.me) == 1, "the session was checked before the write")
            #expect(f.calls(Self.login) == 2, "its 401 led to one login")
            #expect(f.calls("PUT /api/taak/\(task)") == 1)
            #expect(try await f.crashes() == 0)

            // The same for a plan write.
            try await f.expireServerSessions()
            f.clock.advance(31)
            try await TickedifyTaskWrites.remove(
                itemID: item, day: LocalDate.today(in: Trust.zone), context: f.context(sessions))
            #expect(f.calls(Self.me) == 2)
            #expect(try await f.crashes() == 0)
        }
    }

    @Test func insideTheWindowAWriteGoesWithoutACheckAndItsFailureEndsTheTrust() async throws {
        try await Trust.withFixture { f in
            let sessions = f.restart()
            let (task, _) = try await Self.plannedTask(f, sessions)
            _ = try await TickedifyTaskWrites.complete(id: task, context: f.context(sessions))
            #expect(f.calls(Self.me) == 0, "the login proved the session a moment ago")

            // Completing it again: Tickedify's 404 is the write's 404, and the trust ends.
            await #expect(
                throws: WriteRefusal.notFound(
                    "task \(task) is not open in Tickedify: it was completed already or deleted")
            ) {
                _ = try await TickedifyTaskWrites.complete(id: task, context: f.context(sessions))
            }
            #expect(f.calls("PUT /api/taak/\(task)") == 2)
            try await f.plan(sessions)
            #expect(f.calls(Self.me) == 1, "after a failed write the next planning call checks first")
        }
    }

    @Test func aWriteIsNeverRetried() async throws {
        try await Trust.withFixture { f in
            let sessions = f.restart()
            let (task, _) = try await Self.plannedTask(f, sessions)
            _ = try await f.control(.POST, "/_sim/faults", json: #"{"error_status":503,"method":"PUT"}"#)
            await #expect(throws: BackendError.self) {
                _ = try await TickedifyTaskWrites.complete(id: task, context: f.context(sessions))
            }
            #expect(f.calls("PUT /api/taak/\(task)") == 1, "a 503 of a write is not tried again")
        }
    }

    @Test func anAccountWithoutAccessIsRefusedBeforeAnythingIsSent() async throws {
        try await Trust.withFixture { f in
            let settings = TickedifySettings(
                endpoint: BackendEndpoint(baseURL: f.sim.apiBaseURL), email: TickedifySimulator.upgradeEmail,
                password: Secret(TickedifySimulator.upgradePassword), sessionTrust: .seconds(30))
            var context = f.context(f.restart())
            context.profile = ProfileConfig([settings])
            do {
                _ = try await TickedifyTaskWrites.complete(id: "task_1", context: context)
                Issue.record("an account without access completed a task")
            } catch let error as BackendError {
                #expect(error.kind == .accessExpired)
            }
            #expect(f.calls("PUT /api/taak/task_1") == 0)
        }
    }
}
