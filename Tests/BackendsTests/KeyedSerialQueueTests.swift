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
        let first = Task {
            try await queue.run("anna", backend: "tickedify", limit: .milliseconds(200)) {
                sent.add()
                await never.wait()
            }
        }
        // Queued behind it, with the same limit: its turn does not come in time.
        try await Task.sleep(for: .milliseconds(20))
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
        // Another account's writes are not held at all.
        #expect(try await queue.run("bas", backend: "tickedify") { 7 } == 7)
        never.open()
    }
}
