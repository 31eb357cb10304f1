/// What one section of an aggregated answer is: ok (fresh or revalidating data), stale (data
/// past its freshness served because the backend failed or was too slow), or no data at all.
public enum SectionStatus: String, Sendable, Codable {
    case ok
    case stale
    case partial
    case error
    case timeout

    public var hasData: Bool { self == .ok || self == .stale || self == .partial }
}

/// Where a section's data came from, as the cache saw it.
public enum CacheOutcome: String, Sendable, Codable {
    /// Fresh entry served from the cache.
    case hit
    /// No usable entry: fetched from the backend for this request.
    case miss
    /// Entry past its freshness served (revalidating in the background, or the backend failed).
    case stale
    /// Forced refetch (`Cache-Control: no-cache`) that succeeded.
    case refreshed
    /// No data served.
    case none
}

/// A problem with part of a section whose other parts answered: one Kantine Koning
/// enrollment refused, one tenant's season over.
public struct SectionIssue: Sendable, Hashable, Codable {
    /// What the issue is about, e.g. the enrollment's label.
    public var scope: String
    public var code: String
    public var message: String

    public init(scope: String, code: String, message: String) {
        self.scope = scope
        self.code = code
        self.message = message
    }
}

/// Per-section metadata in every aggregated answer.
public struct SectionReport: Sendable, Codable, Equatable {
    public var status: SectionStatus
    public var cache: CacheOutcome
    public var ageSeconds: Int?
    public var backend: String
    public var durationMs: Double
    public var error: ErrorDetail?
    /// Parts of the section that failed while the rest answered (status `partial`).
    public var issues: [SectionIssue]?

    public init(
        status: SectionStatus, cache: CacheOutcome, ageSeconds: Int?, backend: String,
        durationMs: Double = 0, error: ErrorDetail? = nil, issues: [SectionIssue]? = nil
    ) {
        self.status = status
        self.cache = cache
        self.ageSeconds = ageSeconds
        self.backend = backend
        self.durationMs = durationMs
        self.error = error
        self.issues = issues
    }

    /// The report without what differs between two responses for the same data (where the
    /// data came from this time, how old it is, how long it took).
    public var withoutPerResponseFields: SectionReport {
        var copy = self
        copy.cache = .none
        copy.ageSeconds = nil
        copy.durationMs = 0
        return copy
    }

    enum CodingKeys: String, CodingKey {
        case status, cache
        case ageSeconds = "age_seconds"
        case backend
        case durationMs = "duration_ms"
        case error
        case issues
    }
}
