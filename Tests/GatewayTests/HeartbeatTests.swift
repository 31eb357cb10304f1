import Testing

@testable import Gateway

/// The heartbeat's rounds without threads: a round is a proof only when every loop ran its
/// task before the round's own task resumed; `/healthz` is alive while the last proof is young.
struct HeartbeatTests {
    static let start = ContinuousClock.now

    @Test func aRoundIsAProofOnlyWhenEveryLoopRan() {
        var rounds = HeartbeatRounds()
        let first = rounds.begin(loops: 2, now: Self.start)
        rounds.loopRan(0, round: first)
        let firstEnded = rounds.end(first, now: Self.start + .seconds(1))
        #expect(!firstEnded, "one loop did not run")
        let second = rounds.begin(loops: 2, now: Self.start + .seconds(1))
        rounds.loopRan(0, round: first)  // late, from the round before: not counted
        rounds.loopRan(0, round: second)
        rounds.loopRan(1, round: second)
        let secondEnded = rounds.end(second, now: Self.start + .seconds(2))
        #expect(secondEnded)
        #expect(rounds.lastProof == Self.start + .seconds(2))
    }

    @Test func aliveWhileTheLastProofIsYoung() {
        var rounds = HeartbeatRounds()
        #expect(rounds.isAlive(now: Self.start, staleAfter: .seconds(4)), "no heartbeat runs: alive")
        let round = rounds.begin(loops: 1, now: Self.start)
        #expect(rounds.isAlive(now: Self.start + .seconds(3), staleAfter: .seconds(4)))
        #expect(!rounds.isAlive(now: Self.start + .seconds(4), staleAfter: .seconds(4)), "never proven")
        rounds.loopRan(0, round: round)
        let ended = rounds.end(round, now: Self.start + .seconds(5))
        #expect(ended)
        #expect(rounds.isAlive(now: Self.start + .seconds(8), staleAfter: .seconds(4)))
        #expect(!rounds.isAlive(now: Self.start + .seconds(9), staleAfter: .seconds(4)))
    }

    @Test func theNotifierReadsSystemdsEnvironment() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        let plain = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"])
        #expect(plain?.watchdogInterval == nil)
        let watched = SystemdNotifier(
            environment: ["NOTIFY_SOCKET": "@abstract", "WATCHDOG_USEC": "30000000"], pid: 7)
        #expect(watched?.watchdogInterval == .seconds(30))
        let other = SystemdNotifier(
            environment: ["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7)
        #expect(other?.watchdogInterval == nil, "the watchdog is another process's")
    }
}
