/// Who an upstream call is for and where it goes: a profile's backend, and for Kantine
/// Koning the enrollment (each has its own token, so each has its own health). Circuit
/// breakers, `Retry-After` gates and the counters of /v1/sources are kept per source.
public struct UpstreamSource: Sendable, Hashable, CustomStringConvertible {
    public var profile: String
    public var backend: String
    /// The enrollment's label, for Kantine Koning; nil for the backend as a whole.
    public var scope: String?

    public init(profile: String, backend: String, scope: String? = nil) {
        self.profile = profile
        self.backend = backend
        self.scope = scope
    }

    public var description: String {
        scope.map { "\(backend) (\($0))" } ?? backend
    }
}
