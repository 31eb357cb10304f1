import Synchronization

/// Waits with an end. Every wait on shared work in the gateway goes through here, so that no
/// joiner of a single flight, no reader of a slow body and no caller of a stuck task waits for
/// ever: each wait ends at its deadline or when the waiting task is cancelled, whichever comes
/// first, and what it waited for is left to end on its own (a shared flight may still serve
/// others; it has a deadline of its own).
public enum BoundedWait {
    /// Why a bounded wait ended without a value.
    public enum Ended: Error, Equatable, Sendable {
        /// The deadline passed first.
        case deadlinePassed
    }

    /// `task`'s value, or `Ended.deadlinePassed` once `deadline` passes, or `CancellationError`
    /// when the waiting task is cancelled. `task` itself is not cancelled: other waiters may
    /// share it.
    public static func value<Success: Sendable>(
        of task: Task<Success, any Error>, until deadline: ContinuousClock.Instant
    ) async throws -> Success {
        let slot = WaitSlot<Success>()
        return try await slot.wait(until: deadline) {
            Task(executorPreference: TaskPlacement.preferred) { slot.offer(await task.result) }
        }
    }

    /// `task`'s value, or `Ended.deadlinePassed` once `deadline` passes, or `CancellationError`
    /// when the waiting task is cancelled. `task` itself is not cancelled.
    public static func value<Success: Sendable>(
        of task: Task<Success, Never>, until deadline: ContinuousClock.Instant
    ) async throws -> Success {
        let slot = WaitSlot<Success>()
        return try await slot.wait(until: deadline) {
            Task(executorPreference: TaskPlacement.preferred) { slot.offer(.success(await task.value)) }
        }
    }

    /// Runs `operation` and returns its value; at `deadline` the operation is cancelled and the
    /// wait ends with `Ended.deadlinePassed` at once, whether or not the operation has noticed
    /// its cancellation yet (it goes on in the background until it does).
    public static func run<Success: Sendable>(
        until deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> Success
    ) async throws -> Success {
        // The operation's task offers its own outcome: no second task to watch it (every
        // upstream call comes through here).
        let slot = WaitSlot<Success>()
        var started: Task<Void, Never>?
        do {
            return try await slot.wait(until: deadline) {
                let task = Task(executorPreference: TaskPlacement.preferred) {
                    do {
                        slot.offer(.success(try await operation()))
                    } catch {
                        slot.offer(.failure(error))
                    }
                }
                started = task
                return task
            }
        } catch {
            started?.cancel()
            throw error
        }
    }
}

/// One waiter's outcome, offered by whoever comes first (the awaited work, the deadline, the
/// waiter's cancellation) and taken once. Offers after the first are ignored; an offer made
/// before the waiter suspended is kept for it.
final class WaitSlot<Success: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Success, any Error>?
        var outcome: Result<Success, any Error>?
        var taken = false
    }

    private let state = Mutex(State())

    func offer(_ outcome: Result<Success, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Success, any Error>? in
            guard !state.taken, state.outcome == nil else { return nil }
            guard let continuation = state.continuation else {
                state.outcome = outcome
                return nil
            }
            state.continuation = nil
            state.taken = true
            return continuation
        }
        continuation?.resume(with: outcome)
    }

    /// Suspends until an offer; `watch` starts what offers the awaited outcome. A timer
    /// (`DeadlineTimers`) offers the deadline and the task's cancellation offers
    /// `CancellationError`.
    func wait(
        until deadline: ContinuousClock.Instant, watch: () -> Task<Void, Never>
    ) async throws -> Success {
        // The watcher ends with the awaited work (which has a deadline of its own).
        _ = watch()
        let timer = DeadlineTimers.shared.schedule(at: deadline) {
            self.offer(.failure(BoundedWait.Ended.deadlinePassed))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early = state.withLock { state -> Result<Success, any Error>? in
                    if let outcome = state.outcome {
                        state.outcome = nil
                        state.taken = true
                        return outcome
                    }
                    state.continuation = continuation
                    return nil
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            offer(.failure(CancellationError()))
        }
    }
}
