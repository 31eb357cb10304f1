import Model
import SeededRandom
import Synchronization
import Testing

/// The timers behind every bounded wait (`DeadlineTimers`): actions run at their deadlines,
/// earliest first, never once cancelled, and one runner wakes in time for the earliest.
@Suite("Deadline timers")
struct DeadlineScheduleTests {
    typealias Instant = ContinuousClock.Instant
    let zero = ContinuousClock.now

    func at(_ milliseconds: Int) -> Instant { zero + .milliseconds(milliseconds) }

    @Test func actionsComeDueEarliestFirstAndCancelledOnesNever() {
        var random = SplitMix64(seed: 44)
        var schedule = DeadlineSchedule<Int>()
        var ids: [Int: UInt64] = [:]
        var deadlines: [Int: Int] = [:]
        var runner: UInt64 = 0
        for action in 0..<2_000 {
            let deadline = random.int(0...5_000)
            let (id, start) = schedule.add(action, at: at(deadline))
            if case .runner(let started, _) = start { runner = started }
            ids[action] = id
            deadlines[action] = deadline
        }
        // Half of them cancelled, in a random order (places all over the heap).
        var cancelled = Set<Int>()
        while cancelled.count < 1_000 {
            let action = random.below(2_000)
            let taken = schedule.cancel(ids[action]!)
            #expect(taken == (cancelled.contains(action) ? nil : action))
            cancelled.insert(action)
        }
        #expect(schedule.count == 1_000)
        var seen: [Int] = []
        var now = 0
        while now <= 5_000 {
            now += random.int(1...300)
            let (due, next) = schedule.wake(runner: runner, now: at(now))
            for action in due { #expect(deadlines[action]! <= now, "due no earlier than its deadline") }
            seen += due
            if let next { #expect(next > at(now)) }
        }
        let expected = (0..<2_000).filter { !cancelled.contains($0) }.sorted {
            (deadlines[$0]!, $0) < (deadlines[$1]!, $1)
        }
        #expect(seen == expected, "every live action once, by deadline, equal deadlines in the order added")
        #expect(schedule.count == 0)
        #expect(schedule.runnerWakes == nil)
    }

    @Test func aRunnerStartsOnlyForAnEarlierDeadlineAndAnOlderOneStops() {
        var schedule = DeadlineSchedule<String>()
        let first = schedule.add("limit", at: at(1_000))
        #expect(first.start == .runner(1, until: at(1_000)))
        // Later deadlines (now + a fixed limit, again and again): the runner wakes in time.
        #expect(schedule.add("later", at: at(2_000)).start == .none)
        #expect(schedule.add("same", at: at(1_000)).start == .none)
        // An earlier one: a new runner; the old one, when it wakes, is told to stop.
        #expect(schedule.add("sooner", at: at(10)).start == .runner(2, until: at(10)))
        let old = schedule.wake(runner: 1, now: at(1_000))
        #expect(old.due.isEmpty && old.next == nil)
        // A timer cancelled before its time does not hold the runner's next wake.
        schedule.cancel(first.id)
        let woken = schedule.wake(runner: 2, now: at(10))
        #expect(woken.due == ["sooner"])
        #expect(woken.next == at(1_000))
        #expect(schedule.wake(runner: 2, now: at(1_500)).due == ["same"])
        let last = schedule.wake(runner: 2, now: at(2_000))
        #expect(last.due == ["later"] && last.next == nil)
        // No runner left: the next timer starts one.
        #expect(schedule.runnerWakes == nil)
        #expect(schedule.add("again", at: at(5_000)).start == .runner(3, until: at(5_000)))
    }

    /// Whether `condition` holds within 20 s, looked at every 5 ms (a wait with an end of its
    /// own, not one on the timers under test).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let end = ContinuousClock.now + .seconds(20)
        while !condition() {
            if ContinuousClock.now > end { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// A far deadline first, then a near one: the near one fires at its time, not after the
    /// far one's (the runner sleeping for the far one is replaced).
    @Test(.timeLimit(.minutes(1))) func aNearDeadlineAfterAFarOneFiresInTime() async {
        let timers = DeadlineTimers()
        let fired = Mutex(false)
        let far = timers.schedule(at: .now + .seconds(3_600)) { Issue.record("the far timer fired") }
        let near = timers.schedule(at: .now + .milliseconds(20)) { fired.withLock { $0 = true } }
        #expect(await Self.eventually { fired.withLock { $0 } }, "the near timer fired within 20 s")
        near.cancel()
        far.cancel()
        #expect(timers.count == 0)
    }

    /// Cancelled actions never run; the others each run once, none before its deadline. A last
    /// timer after all of them tells when every earlier one has had its turn.
    @Test(.timeLimit(.minutes(1))) func cancelledTimersNeverRun() async {
        let timers = DeadlineTimers()
        let ran = Mutex<[Int: Int]>([:])
        let early = Mutex(0)
        for index in 0..<200 {
            let deadline = ContinuousClock.now + .milliseconds(5 + index % 40)
            let timer = timers.schedule(at: deadline) {
                if ContinuousClock.now < deadline { early.withLock { $0 += 1 } }
                ran.withLock { $0[index, default: 0] += 1 }
            }
            if index.isMultiple(of: 2) { timer.cancel() }
        }
        let done = Mutex(false)
        _ = timers.schedule(at: .now + .milliseconds(60)) { done.withLock { $0 = true } }
        #expect(await Self.eventually { done.withLock { $0 } }, "the last timer fired within 20 s")
        let counts = ran.withLock { $0 }
        #expect(counts.keys.sorted() == Array(stride(from: 1, to: 200, by: 2)))
        #expect(counts.values.allSatisfy { $0 == 1 })
        #expect(early.withLock { $0 } == 0)
        #expect(timers.count == 0)
    }
}
