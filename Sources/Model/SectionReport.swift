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

/// Per-section metadata in every aggregated answer.
public struct SectionReport: Sendable, Codable, Equatable {
    public var status: SectionStatus
    public var cache: CacheOutcome
    public var ageSeconds: Int?
    public var backend: String
    public var durationMs: Double
    public var error: ErrorDetail?

    public init(
        status: SectionStatus, cache: CacheOutcome, ageSeconds: Int?, backend: String,
        durationMs: Double = 0, error: ErrorDetail? = nil
    ) {
        self.status = status
        self.cache = cache
        self.ageSeconds = ageSeconds
        self.backend = backend
        self.durationMs = durationMs
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case status, cache
        case ageSeconds = "age_seconds"
        case backend
        case durationMs = "duration_ms"
        case error
    }
}
