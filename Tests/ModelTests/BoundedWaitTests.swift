import Gates
import Model
import Testing

/// Every wait on shared work has an end: its deadline, or the waiter's cancellation, and the
/// work it waited for goes on for whoever else wants it.
@Suite("Bounded waits")
struct BoundedWaitTests {
    @Test(.timeLimit(.minutes(1))) func aValueComesBackBeforeTheDeadline() async throws {
        let task = Task<Int, any Error> { 42 }
        #expect(try await BoundedWait.value(of: task, until: .now + .seconds(30)) == 42)
        let failing = Task<Int, any Error> { throw CancellationError() }
        await #expect(throws: CancellationError.self) {
            try await BoundedWait.value(of: failing, until: .now + .seconds(30))
        }
    }

    @Test(.timeLimit(.minutes(1))) func workThatNeverEndsIsLeftAtTheDeadline() async throws {
        let gate = Gate()
        let stuck = Task<Int, any Error> {
            await gate.wait()
            return 1
        }
        let began = ContinuousClock.now
        await #expect(throws: BoundedWait.Ended.deadlinePassed) {
            try await BoundedWait.value(of: stuck, until: .now + .milliseconds(100))
        }
        #expect(ContinuousClock.now - began < .seconds(20))
        // The work itself was not cancelled: another waiter still gets its value.
        gate.open()
        #expect(try await BoundedWait.value(of: stuck, until: .now + .seconds(30)) == 1)
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledWaiterLeavesAtOnceAndTheWorkGoesOn() async throws {
        let gate = Gate()
        let stuck = Task<Int, Never> {
            await gate.wait()
            return 7
        }
        let waiter = Task { try await BoundedWait.value(of: stuck, until: .now + .seconds(3600)) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(!stuck.isCancelled)
        gate.open()
        #expect(await stuck.value == 7)
    }

    @Test(.timeLimit(.minutes(1))) func runCancelsItsOperationAtTheDeadline() async throws {
        let gate = Gate()
        await #expect(throws: BoundedWait.Ended.deadlinePassed) {
            try await BoundedWait.run(until: .now + .milliseconds(50)) {
                // Honours cancellation: ends as soon as the deadline cancels it.
                try await Task.sleep(for: .seconds(3600))
                gate.open()
            }
        }
        #expect(!gate.isOpen)
    }

    /// The operation's task prefers the executor of the request it runs for (`TaskPlacement`), so
    /// an upstream call runs as the request's own code does; outside a request, none.
    @Test(.timeLimit(.minutes(1))) func theOperationPrefersTheRequestsExecutor() async throws {
        let executor = QueueTaskExecutor()
        let inside = try await TaskPlacement.$preferred.withValue(executor) {
            try await BoundedWait.run(until: .now + .seconds(60)) { executor.isPreferredHere }
        }
        #expect(inside)
        let outside = try await BoundedWait.run(until: .now + .seconds(60)) { executor.isPreferredHere }
        #expect(!outside)
    }

    /// Many waiters racing their deadlines against the work's end, under the test runner's load:
    /// each one returns (a value or the deadline), none waits for ever.
    @Test(.timeLimit(.minutes(1))) func racingEndsNeverLoseAWaiter() async throws {
        for round in 0..<200 {
            let task = Task<Int, any Error> {
                await Task.yield()
                return round
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            let value = try await BoundedWait.value(of: task, until: .now + .microseconds(round % 7))
                            #expect(value == round)
                        } catch BoundedWait.Ended.deadlinePassed {}
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
