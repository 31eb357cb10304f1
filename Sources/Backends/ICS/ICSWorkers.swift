import CalendarReader
import Dispatch
import Synchronization

/// Where feeds are read and expanded: a few threads of their own, never Swift's shared
/// executor. In the gateway that executor is SwiftNIO's event loops (two threads on two
/// cores): a feed expanded there would stop every connection — `/healthz`, signals, other
/// answers — for as long as it runs. Here at most `width` feeds are worked on at once; more
/// wait their turn without holding a thread, and a waiter that is cancelled leaves the line.
/// Each job gets an `ICSWorkBudget` that the caller's cancellation stops.
final class ICSWorkers: Sendable {
    /// The gateway's workers: two feeds at once.
    static let shared = ICSWorkers(width: 2)

    let width: Int
    private let queues: [DispatchQueue]
    private struct State {
        var free: [Int]
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Int, any Error>)] = []
        var nextID: UInt64 = 0
    }
    private let state: Mutex<State>

    init(width: Int) {
        precondition(width > 0)
        self.width = width
        // Serial queues each get a thread of their own when they have work (libdispatch's
        // overcommitting pool), apart from the threads running Swift's tasks.
        self.queues = (0..<width).map { DispatchQueue(label: "daygate.ics.worker.\($0)", qos: .utility) }
        self.state = Mutex(State(free: Array((0..<width).reversed())))
    }

    /// Runs `work` on a worker with a budget of `maximumSteps` and `maximumDuration` and waits
    /// for it. Throws `CancellationError` when the caller is cancelled (waiting or working).
    func run<Value: Sendable>(
        maximumSteps: Int = .max, maximumDuration: Duration,
        _ work: @escaping @Sendable (ICSWorkBudget) -> Value
    ) async throws -> Value {
        let slot = try await acquire()
        defer { release(slot) }
        try Task.checkCancellation()
        let budget = ICSWorkBudget(maximumSteps: maximumSteps, maximumDuration: maximumDuration)
        let value = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                queues[slot].async {
                    continuation.resume(returning: ICSWorkBudget.$current.withValue(budget) { work(budget) })
                }
            }
        } onCancel: {
            budget.cancel()
        }
        if budget.stop == .cancelled { throw CancellationError() }
        return value
    }

    private func acquire() async throws -> Int {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                let slot = state.withLock { state -> Int? in
                    if let slot = state.free.popLast() { return slot }
                    // Cancelled before joining the line: the handler below found nobody to resume.
                    if Task.isCancelled { return -1 }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if slot == -1 {
                    continuation.resume(throwing: CancellationError())
                } else if let slot {
                    continuation.resume(returning: slot)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func release(_ slot: Int) {
        let next = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            if state.waiting.isEmpty {
                state.free.append(slot)
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume(returning: slot)
    }
}
