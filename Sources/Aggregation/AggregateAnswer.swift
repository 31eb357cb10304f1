import Cache
import Foundation
import Model

/// An aggregated answer and what the HTTP layer needs to describe it.
public struct AggregateAnswer: Sendable {
    /// 200 when any section has data; 404 (`body` is then `{"error":{…}}`) when the route's only
    /// section failed with `not_found` (its backend says the thing asked for does not exist);
    /// 504 when every section timed out; 502 otherwise.
    public var status: Int {
        didSet { reaged = nil }
    }
    /// Setting it (a summary made of a route's answer) drops `reaged`, which would age the
    /// answer it was made from.
    public var body: Data {
        didSet { reaged = nil }
    }
    /// The body without what changes from one response to the next for the same data
    /// (`age_seconds`, each section's `cache` and `duration_ms`): what the ETag is computed
    /// over, so a client polling unchanged data gets 304s.
    public var validatorBody: Data {
        didSet { reaged = nil }
    }
    public var complete: Bool
    public var stale: Bool
    public var ageSeconds: Int
    /// Smallest remaining freshness, when every section is fresh.
    public var maxAge: Int?
    public var sections: [String: SectionReport]
    /// How the cache answered each section, for `Cache-Status` and `Server-Timing`.
    public var lookups: [String: SectionLookup]
    /// Each section's cached body (nil when it has no data), for views derived in Swift.
    public var sectionBodies: [String: Data]
    /// Until when an identical request may be given this very answer: set only when every
    /// section was a fresh hit or a stale entry with its refresh on the way, and never past
    /// the next tick of an age or remaining freshness (whole seconds) or the end of any
    /// section's phase. Valid only while the cache's generation is still `generation` (a
    /// refresh that ends, stored or failed, changes it).
    public var reusableUntil: Date?
    /// What each reuse of the answer counts, one per section: a hit for a fresh section, a
    /// stale serve for one being refreshed. Empty when not reusable.
    public var reuses: [SectionReuse] = []
    /// The cache generation (`CacheGeneration`) read before the first lookup.
    public var generation: UInt64 = 0
    public var profile: String = ""
    /// The same answer at a later moment (`Aggregator.reaged`): nil from it when a lookup then
    /// would come out otherwise; nil itself when the answer cannot be aged again (not reusable,
    /// too large to compose on an event loop, not an aggregated route's, or its body was replaced
    /// by something made of it that does not age itself again, as `SummaryService` does).
    public var reaged: (@Sendable (_ at: Date) -> AggregateAnswer?)? = nil

    /// The answer with the cache generation it was made in, the profile it answers, and how it
    /// is aged again (`reaging`, from the same lookups; each aged answer can be aged again).
    func madeAt(
        generation: UInt64, profile: String, reaging: (@Sendable (_ at: Date) -> AggregateAnswer?)?
    ) -> AggregateAnswer {
        var answer = self
        answer.generation = generation
        answer.profile = profile
        if let reaging, answer.reusableUntil != nil {
            answer.reaged = { at in reaging(at)?.madeAt(generation: generation, profile: profile, reaging: reaging) }
        }
        return answer
    }
}

/// What one section of a reused answer counts for its operation.
public struct SectionReuse: Sendable, Equatable {
    public var operation: String
    public var event: CacheCounters.Event
}

/// How the cache answered one section.
public struct SectionLookup: Sendable, Equatable {
    public var outcome: CacheLookupResult.Outcome
    /// The request joined a fetch another request had started.
    public var collapsed: Bool
    /// Seconds of freshness left (negative once stale); nil without data.
    public var ttl: Int?
    public var durationMs: Double
    public var backend: String
}
