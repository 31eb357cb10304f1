import Cache
import Foundation
import Gates
import HTTPTypes
import Model
import NIOCore
import Synchronization
import Testing

@testable import Gateway

/// `AnswerMemo`'s single-flight composition: requests that find no kept answer wait for the one
/// composition on its way instead of each composing — unless the cache changed since it began.
struct AnswerMemoTests {
    /// A composition that counts its runs and waits until released.
    final class Composer: Sendable {
        let runs = Atomic<Int>(0)
        let gate = Gate()
        let reusable: Bool
        let generation: @Sendable () -> UInt64

        init(reusable: Bool = true, generation: @escaping @Sendable () -> UInt64) {
            self.reusable = reusable
            self.generation = generation
        }

        /// Waits until `count` compositions have begun (at most 5 s).
        func started(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while runs.load(ordering: .relaxed) < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        func compose() async throws -> RenderedAnswer {
            let run = runs.add(1, ordering: .relaxed).newValue
            let began = generation()
            await gate.wait()
            return RenderedAnswer(
                status: .ok, headers: [:], body: ByteBuffer(string: "run \(run)"), etag: "\"\(run)\"",
                reusableUntil: reusable ? Date().addingTimeInterval(60) : nil, generation: began, profile: "default",
                reuses: []
            )
        }
    }

    static func store() throws -> (CacheStore, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-memo-\(UUID().uuidString)")
            .path
        return (
            CacheStore(database: try CacheDatabase(stateDirectory: folder), maxBytes: 1 << 20, memoryBytes: 1 << 20),
            folder
        )
    }

    /// Starts `count` requests for `key`, waits until they are all waiting, then lets the
    /// composition finish; returns the bodies they got.
    static func ask(
        _ memo: AnswerMemo, _ composer: Composer, count: Int, key: String = "k", fresh: Bool = false
    ) async throws -> [String] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let answer = try await memo.answer(for: key, fresh: fresh, now: { Date() }) {
                        try await composer.compose()
                    }
                    return String(buffer: answer.body)
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            composer.gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func requestsThatFindNoKeptAnswerShareOneComposition() async throws {
        let (store, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let memo = AnswerMemo(cache: store)
        let composer = Composer { store.generation.current }
        let bodies = try await Self.ask(memo, composer, count: 20)
        #expect(composer.runs.load(ordering: .relaxed) == 1)
        #expect(Set(bodies) == ["run 1"])
        // Kept: the next request composes nothing.
        let again = try await memo.answer(for: "k", now: { Date() }) { try await composer.compose() }
        #expect(String(buffer: again.body) == "run 1")
        #expect(composer.runs.load(ordering: .relaxed) == 1)
    }

    /// A client's `no-cache` is not answered with the kept answer but with a composition of its
    /// own time; a burst of them (a client reloading in a loop, 200 that hang up at once)
    /// shares the one on its way instead of composing one each.
    @Test func aClientsNoCacheComposesAnewAndABurstSharesOne() async throws {
        let (store, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let memo = AnswerMemo(cache: store)
        let kept = Composer { store.generation.current }
        _ = try await Self.ask(memo, kept, count: 1)
        let burst = Composer { store.generation.current }
        let bodies = try await Self.ask(memo, burst, count: 20, fresh: true)
        #expect(burst.runs.load(ordering: .relaxed) == 1, "not the kept answer; one composition for the burst")
        #expect(Set(bodies) == ["run 1"])
        _ = try await Self.ask(memo, burst, count: 1, fresh: true)
        #expect(burst.runs.load(ordering: .relaxed) == 2, "a later no-cache composes again")
        #expect(kept.runs.load(ordering: .relaxed) == 1)
    }

    /// A request that comes after a write's invalidation must not get the answer of a
    /// composition that began before it (its data may predate the write).
    @Test func afterTheCacheChangedARequestDoesNotJoinAnOlderComposition() async throws {
        let (store, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let memo = AnswerMemo(cache: store)
        let composer = Composer(reusable: false) { store.generation.current }
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                String(buffer: try await memo.answer(for: "k", now: { Date() }) { try await composer.compose() }.body)
            }
            try await composer.started(1)
            await store.invalidate(profile: "default", operation: "tickedify.daily_plan")
            group.addTask {
                String(buffer: try await memo.answer(for: "k", now: { Date() }) { try await composer.compose() }.body)
            }
            try await composer.started(2)
            composer.gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(composer.runs.load(ordering: .relaxed) == 2)
        #expect(Set(bodies) == ["run 1", "run 2"])
    }

    /// An answer that can be aged again (`RenderedAnswer.reaged`), counting its agings.
    final class Aging: Sendable {
        let runs = Atomic<Int>(0)
        let refuses: Bool

        init(refuses: Bool = false) {
            self.refuses = refuses
        }

        var count: Int { runs.load(ordering: .relaxed) }

        func answer(_ label: String, until: Date, generation: UInt64) -> RenderedAnswer {
            var answer = RenderedAnswer(
                status: .ok, headers: [:], body: ByteBuffer(string: label), etag: "\"e\"", reusableUntil: until,
                generation: generation, profile: "default", reuses: [])
            answer.reaged = { at in
                let run = self.runs.add(1, ordering: .relaxed).newValue
                return self.refuses
                    ? nil : self.answer("aged \(run)", until: at.addingTimeInterval(1), generation: generation)
            }
            return answer
        }
    }

    /// When its clock runs out (an age ticks) and nothing cached changed, a kept answer is aged
    /// again from its own lookups, once, by the first to find it so — for the router and the hot
    /// path alike — instead of composed anew; not once the cache has changed.
    @Test func aKeptAnswerWhoseClockRanOutIsAgedAgainNotComposed() async throws {
        let (store, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let memo = AnswerMemo(cache: store)
        let aging = Aging()
        let start = Date()
        memo.keep(
            aging.answer("composed", until: start.addingTimeInterval(0.5), generation: store.generation.current),
            for: "k", now: start)
        #expect(memo.reuse("k", now: start.addingTimeInterval(0.2)).map { String(buffer: $0.body) } == "composed")
        #expect(aging.count == 0)

        let later = start.addingTimeInterval(3)
        #expect(memo.reuse("k", now: later).map { String(buffer: $0.body) } == "aged 1")
        #expect(memo.reuse("k", now: later.addingTimeInterval(0.5)).map { String(buffer: $0.body) } == "aged 1")
        #expect(aging.count == 1, "kept once aged")
        let hot = memo.reuseHot("k", now: later.addingTimeInterval(1.5))
        #expect(hot.map { String(buffer: $0.wire.body) } == "aged 2")
        let composer = Composer { store.generation.current }
        composer.gate.open()
        let routed = try await memo.answer(for: "k", now: { later.addingTimeInterval(2.5) }) {
            try await composer.compose()
        }
        #expect(String(buffer: routed.body) == "aged 3")
        #expect(composer.runs.load(ordering: .relaxed) == 0, "aged, not composed")

        await store.invalidate(profile: "default", operation: "tickedify.daily_plan")
        #expect(memo.reuse("k", now: later.addingTimeInterval(3.5)) == nil)
        #expect(aging.count == 3, "not aged after the cache changed")
    }

    /// An answer whose lookups would not come out the same any more (a freshness ended) is
    /// dropped when aging it says so, and not tried again.
    @Test func anAnswerThatCannotBeAgedIsDropped() async throws {
        let (store, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let memo = AnswerMemo(cache: store)
        let aging = Aging(refuses: true)
        let start = Date()
        memo.keep(
            aging.answer("composed", until: start.addingTimeInterval(0.5), generation: store.generation.current),
            for: "k", now: start)
        #expect(memo.reuse("k", now: start.addingTimeInterval(1)) == nil)
        #expect(memo.reuse("k", now: start.addingTimeInterval(1.1)) == nil)
        #expect(aging.count == 1)
    }

    /// A composition runs in a task of its own (shared by the requests that join it); that task
    /// prefers the executor of the request that started it (`TaskPlacement`), kept or `no-cache`.
    @Test func aCompositionPrefersTheExecutorOfTheRequestThatStartedIt() async throws {
        let (store, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let memo = AnswerMemo(cache: store)
        let executor = QueueTaskExecutor()
        let seen = Mutex<[Bool]>([])
        let compose: @Sendable () async throws -> RenderedAnswer = {
            seen.withLock { $0.append(executor.isPreferredHere) }
            return RenderedAnswer(
                status: .ok, headers: [:], body: ByteBuffer(string: "day"), etag: "\"1\"", reusableUntil: nil,
                generation: store.generation.current, profile: "default", reuses: [])
        }
        for fresh in [false, true] {
            _ = try await TaskPlacement.$preferred.withValue(executor) {
                try await memo.answer(for: "k", fresh: fresh, now: { Date() }, compose: compose)
            }
        }
        _ = try await memo.answer(for: "k", fresh: true, now: { Date() }, compose: compose)
        #expect(seen.withLock { $0 } == [true, true, false])
    }
}
