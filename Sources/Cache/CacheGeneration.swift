import Synchronization

/// A number that goes up whenever anything cached may have changed (a fetch stored or failed,
/// entries expired or invalidated). Something derived from several entries (a composed
/// answer) stays valid only while the generation it was built under is still current, which
/// costs one atomic load to check.
public final class CacheGeneration: Sendable {
    private let value = Atomic<UInt64>(0)

    public init() {}

    public var current: UInt64 { value.load(ordering: .acquiring) }

    func advance() {
        value.add(1, ordering: .releasing)
    }
}
