import Synchronization

/// Actions to run at deadlines, for every bounded wait of the process (`BoundedWait`, the
/// cache's waiters and fetch limits): one task sleeps until the earliest deadline
/// (`DeadlineSchedule` decides), instead of a task and a timer of its own for each wait.
///
/// Each `Task.sleep` is a timer in the system's timer heap (libdispatch's on Linux), and a
/// cancelled sleep's timer stays there until its deadline: a cold day made about forty such
/// timers, a tenth of its CPU (BENCHMARKS.md, "The cold day"). Here a wait that ends before its
/// deadline is taken out of the schedule under a lock and costs no task, and most deadlines
/// (now + a fixed limit) are later than the earliest one and wake nothing.
///
/// An action runs on the runner's task: it must be short and must not block (offer a result,
/// start a task). It runs at or after its deadline, never before. `cancel` keeps it from
/// running unless the runner has already taken it as due: an action may still run just after
/// its timer was cancelled, so each one checks that what it ends is still waiting (a taken
/// `WaitSlot` ignores the offer, the cache looks its waiter and fetch up by id).
public final class DeadlineTimers: Sendable {
    /// The process's timers.
    public static let shared = DeadlineTimers()

    public typealias Action = @Sendable () -> Void

    private struct State {
        var schedule = DeadlineSchedule<Action>()
        /// The current runner's task, cancelled when a newer runner supersedes it.
        var runner: Task<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// A scheduled action: `cancel` it once it is no longer needed.
    public struct Timer: Sendable {
        let owner: DeadlineTimers
        let id: UInt64

        /// Takes the action out, unless the runner has already taken it as due.
        public func cancel() {
            // The action is released outside the lock: what it holds may have a deinit.
            let action = owner.state.withLock { $0.schedule.cancel(id) }
            _ = action
        }
    }

    /// Runs `action` once `deadline` has passed, unless the timer is cancelled first.
    public func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping Action) -> Timer {
        let (id, superseded) = state.withLock { state -> (UInt64, Task<Void, Never>?) in
            let (id, start) = state.schedule.add(action, at: deadline)
            guard case .runner(let runner, let until) = start else { return (id, nil) }
            let previous = state.runner
            // Detached: the runner outlives the wait that started it and must not keep that
            // task's locals (a request's logger, say) for as long as it sleeps.
            state.runner = Task.detached { await self.run(runner, until: until) }
            return (id, previous)
        }
        superseded?.cancel()
        return Timer(owner: self, id: id)
    }

    /// Timers waiting (for tests and diagnostics).
    public var count: Int { state.withLock { $0.schedule.count } }

    private func run(_ runner: UInt64, until first: ContinuousClock.Instant) async {
        var wake = first
        while true {
            // Cancelled only when superseded: `wake` below then stops this runner.
            try? await Task.sleep(until: wake, clock: .continuous)
            let (due, next) = state.withLock { state in
                let woken = state.schedule.wake(runner: runner, now: .now)
                if woken.next == nil, state.schedule.runner == runner { state.runner = nil }
                return woken
            }
            for action in due { action() }
            guard let next else { return }
            wake = next
        }
    }
}
