import Foundation
import Synchronization

/// The proof that the gateway still runs work: each round, every event loop runs a task of the
/// round and the Swift task that began the round resumes after its pause (on the executor
/// that runs every request's task). A round that sees both is a proof; `WatchdogService` sends
/// systemd its `WATCHDOG=1` only then, and `/healthz` answers from the age of the last proof.
/// No thread of its own keeps it: a stalled pool or loop stops the proofs.
///
/// The decisions are pure (`HeartbeatRounds`); this class holds them behind a lock for the
/// loops and the task.
public final class Heartbeat: Sendable {
    /// How often a round begins.
    public let interval: Duration
    private let rounds: Mutex<HeartbeatRounds>

    public init(interval: Duration = .seconds(1)) {
        self.interval = interval
        self.rounds = Mutex(HeartbeatRounds())
    }

    /// Begins a round of `loops` loops at `now`; returns its number, which the loops' tasks
    /// report back.
    public func beginRound(loops: Int, now: ContinuousClock.Instant = .now) -> UInt64 {
        rounds.withLock { $0.begin(loops: loops, now: now) }
    }

    /// Loop `index` ran its task of `round`.
    public func loopRan(_ index: Int, round: UInt64) {
        rounds.withLock { $0.loopRan(index, round: round) }
    }

    /// The task of `round` resumed at `now`: true when the round is a proof (every loop ran).
    public func roundEnded(_ round: UInt64, now: ContinuousClock.Instant = .now) -> Bool {
        rounds.withLock { $0.end(round, now: now) }
    }

    /// How long ago the last proof was, nil before the first round ends (or when no heartbeat
    /// runs: the in-process tests).
    public func age(now: ContinuousClock.Instant = .now) -> Duration? {
        rounds.withLock { $0.lastProof.map { now - $0 } }
    }

    /// Whether `/healthz` says the gateway is alive: no heartbeat started yet, or the last
    /// proof is younger than three intervals and a second.
    public func isAlive(now: ContinuousClock.Instant = .now) -> Bool {
        rounds.withLock { $0.isAlive(now: now, staleAfter: interval * 3 + .seconds(1)) }
    }
}

/// The heartbeat's rounds as a pure state machine: which loops have run the current round's
/// task, and when the last full round (a proof) ended.
struct HeartbeatRounds: Equatable {
    private(set) var loops = 0
    private(set) var round: UInt64 = 0
    private(set) var begunAt: ContinuousClock.Instant?
    private(set) var ran: Set<Int> = []
    private(set) var lastProof: ContinuousClock.Instant?

    mutating func begin(loops: Int, now: ContinuousClock.Instant) -> UInt64 {
        round += 1
        self.loops = loops
        ran = []
        if begunAt == nil { begunAt = now }
        return round
    }

    mutating func loopRan(_ index: Int, round: UInt64) {
        guard round == self.round, (0..<loops).contains(index) else { return }
        ran.insert(index)
    }

    /// A proof when every loop ran this round's task before the round's task resumed.
    mutating func end(_ round: UInt64, now: ContinuousClock.Instant) -> Bool {
        guard round == self.round, ran.count == loops else { return false }
        lastProof = now
        return true
    }

    func isAlive(now: ContinuousClock.Instant, staleAfter: Duration) -> Bool {
        guard let since = lastProof ?? begunAt else { return true }
        return now - since < staleAfter
    }
}
