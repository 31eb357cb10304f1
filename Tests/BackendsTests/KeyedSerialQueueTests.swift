import Backends
import Gates
import Model
import Synchronization
import Testing

/// Queued writes wait with an end: a caller stops waiting at its limit, and a write whose turn
/// did not come in time is never sent (two writes for one account never run side by side).
@Suite("Keyed serial queue")
struct KeyedSerialQueueTests {
    final class Sent: Sendable {
        let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
    }

    @Test(.timeLimit(.minutes(1))) func aHangingWriteHoldsNobodyForEverAndTheNextIsNotSent() async throws {
        let queue = KeyedSerialQueue()
        let never = Gate()
        let sent = Sent()
        let running = Gate()
        let first = Task {
            try await queue.run("anna", backend: "tickedify", limit: .milliseconds(200)) {
                sent.add()
                running.open()
                await never.wait()
            }
        }
        // Queued behind it, with the same limit: its turn does not come in time.
        await running.wait()
        let second = Task {
            try await queue.run("anna", backend: "tickedify", limit: .milliseconds(200)) { sent.add() }
        }
        let outcomes: [Result<Void, any Error>] = [await first.result, await second.result]
        for outcome in outcomes {
            guard case .failure(let error as BackendError) = outcome else {
                Issue.record("expected a timeout, got \(outcome)")
                continue
            }
            #expect(error.kind == .timeout)
        }
        #expect(sent.count.withLock { $0 } == 1, "the second write was never sent")
        // A third, after both callers gave up: the first still runs, so it is not sent either.
        let third = await Task {
            try await queue.run("anna", backend: "tickedify", limit: .milliseconds(200)) { sent.add() }
        }.result
        #expect(throws: BackendError.self) { try third.get() }
        #expect(sent.count.withLock { $0 } == 1, "never side by side with the hanging write")
        // Another account's writes are not held at all.
        #expect(try await queue.run("bas", backend: "tickedify") { 7 } == 7)
        // Once it ends, the account's writes go through again.
        never.open()
        #expect(try await queue.run("anna", backend: "tickedify") { 8 } == 8)
    }
}
