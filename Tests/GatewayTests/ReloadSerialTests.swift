import Gates
import Synchronization
import Testing

@testable import Gateway

/// Reloads run one at a time with at most one waiting, and nobody waits for one for ever.
@Suite("Reload serial")
struct ReloadSerialTests {
    /// Counts the reloads that ran; each holds until its gate opens.
    final class Reloads: Sendable {
        let gates: [Gate]
        private let ran = Mutex(0)
        init(_ count: Int) { gates = (0..<count).map { _ in Gate() } }
        var count: Int { ran.withLock { $0 } }
        func body() -> @Sendable () async -> Int {
            { [self] in
                let index = ran.withLock { count -> Int in
                    count += 1
                    return count
                }
                await gates[min(index, gates.count) - 1].wait()
                return index
            }
        }
    }

    /// Five asks while one reload runs: they all get the one reload that starts after it.
    @Test(.timeLimit(.minutes(1))) func asksWhileOneRunsJoinTheNextOne() async throws {
        let serial = ReloadSerial<Int>()
        let reloads = Reloads(3)
        let first = Task { await serial.run(timedOut: { -1 }, reloads.body()) }
        while reloads.count < 1 {
            try Task.checkCancellation()
            await Task.yield()
        }
        let later = (0..<5).map { _ in Task { await serial.run(timedOut: { -1 }, reloads.body()) } }
        // Every later ask has joined before the first reload ends.
        while await serial.waitingAsks < 5 {
            try Task.checkCancellation()
            await Task.yield()
        }
        reloads.gates[0].open()
        #expect(await first.value == 1)
        reloads.gates[1].open()
        for ask in later { #expect(await ask.value == 2) }
        #expect(reloads.count == 2)
        // Once that one has started, a new ask gets a reload of its own.
        reloads.gates[2].open()
        #expect(await serial.run(timedOut: { -1 }, reloads.body()) == 3)
    }

    /// A reload that never ends: its asker gets `timedOut` at the limit, and so does a later ask
    /// queued behind it; neither waits for ever, and nothing piles up.
    @Test(.timeLimit(.minutes(1))) func aReloadThatNeverEndsIsLeftAtTheLimit() async throws {
        let serial = ReloadSerial<Int>()
        let reloads = Reloads(1)
        #expect(await serial.run(limit: .milliseconds(50), timedOut: { -1 }, reloads.body()) == -1)
        #expect(await serial.run(limit: .milliseconds(50), timedOut: { -2 }, reloads.body()) == -2)
        #expect(await serial.run(limit: .milliseconds(50), timedOut: { -3 }, reloads.body()) == -3)
        #expect(reloads.count == 1)
        reloads.gates[0].open()
    }
}
