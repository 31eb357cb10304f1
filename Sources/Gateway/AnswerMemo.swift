import Cache
import Foundation
import Model
import Synchronization

/// Rendered answers kept for reuse: a request whose resolved route, profile and parameters
/// equal an earlier one's gets that answer's very bytes, while every section it was built from
/// is still a fresh hit or a stale entry with its refresh on the way
/// (`RenderedAnswer.reusableUntil`, at most a second) and nothing cached has changed since
/// (`CacheGeneration`; a refresh that ends changes it). It is what makes a cache hit cost a
/// dictionary lookup instead of five cache lookups, two JSON encodings and a SHA-256 — also
/// while entries are being refreshed, so a burst of requests then cannot starve the refresh;
/// `no-cache` requests skip it, and each reuse still counts a hit (or a stale serve) of every
/// section it stands for.
///
/// When a kept answer's clock runs out (an age or a remaining freshness ticks, several times a
/// second for sections fetched at different moments) while nothing cached changed, it is aged
/// again from its own lookups (`lookUp`, `Aggregator.reaged`) instead of composed anew: the
/// requests that met a tick no longer go through the router, each with its task's memory.
///
/// Composing is single-flight per key (`answer(for:now:compose:)`): when a kept answer runs out
/// and cannot be aged under load, the requests that find it gone wait for one
/// composition instead of each running the aggregator — 256 connections used to compose 256
/// answers at every tick, with their tasks' memory — unless the cache changed since that
/// composition began (a write's invalidation): then they compose their own, as the cache's
/// own single-flight does.
///
/// No wait for a composition is endless: a joiner and the request that began it wait
/// `compositionLimit` at most (the aggregator answers by each route's deadline, far sooner;
/// this ends the wait when something else failed to), then answer `504 answer_timeout`; a
/// request that is cancelled stops waiting at once. The composition is left to end on its own.
final class AnswerMemo: Sendable {
    /// How long anyone waits for a composition.
    static let compositionLimit: Duration = .seconds(30)

    private struct Kept {
        var answer: RenderedAnswer
        /// The same as HTTP/1.1 bytes, for the hot path.
        var wire: AnswerWire
        /// Counts what each reuse stands for (a hit or a stale serve per section).
        var hits: ReusedLookups
        /// Whether a caller is aging it again (`lookUp`): the others do not wait for it.
        var reaging = false
    }

    /// What `lookUp` found under a key.
    private enum Found {
        case none
        case kept(Kept)
        /// Run out by its clock (an age ticked) but agable: the caller ages it again.
        case reage(Kept, @Sendable (_ at: Date) -> RenderedAnswer?)
    }

    private let entries = Mutex<[String: Kept]>([:])
    /// Compositions on their way, by key, with the cache generation each began in.
    private let flights = Mutex<[String: (generation: UInt64, task: Task<RenderedAnswer, any Error>)]>([:])
    /// Refetching compositions (`no-cache`) on their way, by key.
    private let freshFlights = Mutex<[String: Task<RenderedAnswer, any Error>]>([:])
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
        lookUp(key, now: now)?.answer
    }

    /// The answer for `key`: the kept one when it may be given; else the one a composition on
    /// its way brings (when nothing cached changed since it began); else a new composition by
    /// `compose`, kept when it may be reused. With `fresh` (a client's `no-cache`) a refetching
    /// composition: the one on its way for `key` if there is one (its sections' refetches are
    /// the ones this request would join in the cache anyway), else a new one — so a burst of
    /// `no-cache` requests (a client reloading in a loop, 200 that hang up at once) costs one
    /// composition at a time, not one each.
    func answer(
        for key: String, fresh: Bool = false, now: @Sendable () -> Date,
        compose: @escaping @Sendable () async throws -> RenderedAnswer
    ) async throws -> RenderedAnswer {
        if fresh {
            let (task, joined) = freshFlights.withLock { flights in
                if let task = flights[key] { return (task, true) }
                let task = Task(executorPreference: TaskPlacement.preferred) { try await compose() }
                flights[key] = task
                return (task, false)
            }
            if joined { return try await Self.wait(for: task).joined }
            defer {
                freshFlights.withLock { flights in
                    if flights[key] == task { flights.removeValue(forKey: key) }
                }
            }
            let answer = try await Self.wait(for: task)
            keep(answer, for: key, now: now())
            return answer
        }
        if let kept = reuse(key, now: now()) { return kept }
        let generation = cache.generation.current
        let (task, joined) = flights.withLock { flights in
            if let flight = flights[key], flight.generation == generation { return (flight.task, true) }
            let task = Task(executorPreference: TaskPlacement.preferred) { try await compose() }
            flights[key] = (generation, task)
            return (task, false)
        }
        if joined {
            let answer = try await Self.wait(for: task)
            // Counted like a reuse (a hit or a stale serve per section) when it was kept.
            return reuse(key, now: now()) ?? answer
        }
        defer {
            flights.withLock { flights in
                if flights[key]?.task == task { flights.removeValue(forKey: key) }
            }
        }
        let answer = try await Self.wait(for: task)
        keep(answer, for: key, now: now())
        return answer
    }

    private static func wait(for task: Task<RenderedAnswer, any Error>) async throws -> RenderedAnswer {
        do {
            return try await BoundedWait.value(of: task, until: .now + compositionLimit)
        } catch BoundedWait.Ended.deadlinePassed {
            throw GatewayError(
                .gatewayTimeout, code: "answer_timeout",
                message: "the answer was not composed within \(compositionLimit.components.seconds) s")
        }
    }

    /// A kept answer as the hot path holds it: its bytes, what a reuse counts, and until when
    /// it may be given. A connection may keep it between requests and give it again while
    /// `isReusable` holds — exactly when `AnswerMemo` itself would still give it. A class: a
    /// connection holds it without copying its buffers and strings per request.
    final class HotAnswer: Sendable {
        let wire: AnswerWire
        let hits: ReusedLookups
        let generation: UInt64
        let until: Date

        init(wire: AnswerWire, hits: ReusedLookups, generation: UInt64, until: Date) {
            self.wire = wire
            self.hits = hits
            self.generation = generation
            self.until = until
        }

        func isReusable(now: Date, generation current: UInt64) -> Bool {
            generation == current && now < until
        }
    }

    /// `reuse` for the hot path (counted like it).
    func reuseHot(_ key: String, now: Date) -> HotAnswer? {
        lookUp(key, now: now).flatMap { kept in
            kept.answer.reusableUntil.map {
                HotAnswer(wire: kept.wire, hits: kept.hits, generation: kept.answer.generation, until: $0)
            }
        }
    }

    var generation: UInt64 { cache.generation.current }

    /// Compositions on their way (plain, `no-cache`), for the operator's dump.
    var compositionsInFlight: (plain: Int, fresh: Int) {
        (flights.withLock { $0.count }, freshFlights.withLock { $0.count })
    }

    /// The answer kept under `key` that may be given at `now`, counted as a reuse. One whose
    /// clock ran out (an age or the remaining freshness ticked) while nothing cached changed is
    /// aged again from its own lookups (`RenderedAnswer.reaged`) when they would come out the
    /// same, by the first caller to find it so — the others meanwhile find nothing and compose
    /// as before. So a polled answer ticks without a composition through the router: at 256
    /// connections the requests that met a tick each went there (with their tasks' memory).
    /// Aging runs where it is asked, on an event loop for the hot path: an answer's sections
    /// are below `Aggregator.largeAnswerBytes` together, or it cannot be aged.
    private func lookUp(_ key: String, now: Date) -> Kept? {
        let current = cache.generation.current
        let found = entries.withLock { entries -> Found in
            guard let kept = entries[key] else { return .none }
            guard kept.answer.generation == current, let until = kept.answer.reusableUntil else {
                entries.removeValue(forKey: key)
                return .none
            }
            if now < until { return .kept(kept) }
            guard let reaged = kept.answer.reaged else {
                entries.removeValue(forKey: key)
                return .none
            }
            if kept.reaging { return .none }
            entries[key]?.reaging = true
            return .reage(kept, reaged)
        }
        switch found {
        case .none:
            return nil
        case .kept(let kept):
            kept.hits.count()
            return kept
        case .reage(let old, let reaged):
            let aged = reaged(now).flatMap { answer -> Kept? in
                guard let until = answer.reusableUntil, now < until, answer.generation == current else { return nil }
                return Kept(answer: answer, wire: AnswerWire(answer), hits: old.hits)
            }
            let kept = entries.withLock { entries -> Kept? in
                // Unless another composition was kept meanwhile (then that one stays).
                guard entries[key]?.reaging == true else { return nil }
                guard let aged, aged.answer.generation == cache.generation.current else {
                    entries.removeValue(forKey: key)
                    return nil
                }
                entries[key] = aged
                return aged
            }
            kept?.hits.count()
            return kept
        }
    }

    /// Keeps `answer` under `key` when it may be reused; drops what has run out when full.
    func keep(_ answer: RenderedAnswer, for key: String, now: Date) {
        guard let until = answer.reusableUntil, now < until, answer.generation == cache.generation.current else {
            return
        }
        let kept = Kept(
            answer: answer, wire: AnswerWire(answer),
            hits: cache.reusedLookups(profile: answer.profile, answer.reuses.map { ($0.operation, $0.event) })
        )
        entries.withLock { entries in
            if entries.count >= limit {
                entries = entries.filter { _, kept in kept.answer.reusableUntil.map { now < $0 } ?? false }
                if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = kept
        }
    }

}
