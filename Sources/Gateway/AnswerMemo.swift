import Cache
import Foundation
import Synchronization

/// Rendered answers kept for reuse: a request whose resolved route, profile and parameters
/// equal an earlier one's gets that answer's very bytes, while every section it was built from
/// is still a fresh hit (`RenderedAnswer.reusableUntil`, at most a second) and nothing cached
/// has changed since (`CacheGeneration`). It is what makes a cache hit cost a dictionary
/// lookup instead of five cache lookups, two JSON encodings and a SHA-256; `no-cache`
/// requests skip it, and each reuse still counts as a hit of every section it stands for.
final class AnswerMemo: Sendable {
    private let entries = Mutex<[String: RenderedAnswer]>([:])
    private let cache: CacheStore
    private let limit: Int

    /// - Parameter limit: answers kept at most (they live a second at most; the limit bounds
    ///   memory when many distinct parameters are asked within one).
    init(cache: CacheStore, limit: Int = 256) {
        self.cache = cache
        self.limit = limit
    }

    /// The answer kept under `key`, when it may still be given at `now`; giving it counts a
    /// cache hit for each section it stands for.
    func reuse(_ key: String, now: Date) -> RenderedAnswer? {
        let current = cache.generation.current
        let kept = entries.withLock { entries -> RenderedAnswer? in
            guard let answer = entries[key] else { return nil }
            guard answer.generation == current, let until = answer.reusableUntil, now < until else {
                entries.removeValue(forKey: key)
                return nil
            }
            return answer
        }
        if let kept { cache.countReusedHits(profile: kept.profile, operations: kept.operations) }
        return kept
    }

    /// Keeps `answer` under `key` when it may be reused; drops what has run out when full.
    func keep(_ answer: RenderedAnswer, for key: String, now: Date) {
        guard let until = answer.reusableUntil, now < until, answer.generation == cache.generation.current else { return }
        entries.withLock { entries in
            if entries.count >= limit {
                entries = entries.filter { _, kept in kept.reusableUntil.map { now < $0 } ?? false }
                if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = answer
        }
    }

}
