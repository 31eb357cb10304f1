import Foundation
import Model

/// Reloads one at a time, and at most one waiting behind the one that runs. A reload asked while
/// another runs joins the one that will start after it — which reads the config after every such
/// ask — so a burst of SIGHUPs costs at most two reads, never a queue. Each asker waits at most
/// `limit`: a reload that has not ended by then (one stuck on a cache that does not answer)
/// answers `timedOut()` to its askers and goes on on its own; later asks still join the one
/// waiting behind it.
actor ReloadSerial<Outcome: Sendable> {
    /// How long an asker waits for its reload by default.
    static var limit: Duration { .seconds(60) }

    /// The last reload asked: running, or waiting for the one before it.
    private var tail: Task<Outcome, Never>?
    /// Whether `tail` has started (then a new ask needs a reload of its own).
    private var tailStarted = true
    private var nextID: UInt64 = 0
    /// Asks waiting for a reload that has not started (for tests).
    private(set) var waitingAsks = 0

    /// Runs `body` once every reload asked before this call has ended, or joins the reload that
    /// is already waiting to do so; returns its outcome, or `timedOut()` after `limit`.
    func run(
        limit: Duration = ReloadSerial.limit, timedOut: @escaping @Sendable () -> Outcome,
        _ body: @escaping @Sendable () async -> Outcome
    ) async -> Outcome {
        let task: Task<Outcome, Never>
        if let tail, !tailStarted {
            task = tail
            waitingAsks += 1
        } else {
            nextID += 1
            let id = nextID
            let previous = tail
            task = Task {
                _ = await previous?.value
                self.begin(id)
                return await body()
            }
            tail = task
            tailStarted = false
            waitingAsks = 1
        }
        do {
            return try await BoundedWait.value(of: task, until: .now + limit)
        } catch {
            return timedOut()
        }
    }

    private func begin(_ id: UInt64) {
        if id == nextID {
            tailStarted = true
            waitingAsks = 0
        }
    }
}
