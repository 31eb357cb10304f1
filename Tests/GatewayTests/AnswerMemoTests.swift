import Cache
import Foundation
import Gates
import HTTPTypes
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
}
