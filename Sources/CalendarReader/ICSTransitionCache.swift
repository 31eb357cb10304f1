import Synchronization

/// The offset changes of a feed-defined zone, worked out once per UTC year and kept: expanding
/// the observances' RRULEs for every instant read would make a busy feed slow.
final class ICSTransitionCache: Sendable {
    /// The offset in force when a UTC year begins and the changes during it, sorted.
    struct Year: Sendable {
        var initialOffset: Int
        var transitions: [(onset: Int, offset: Int)]
    }

    private let years = Mutex<[Int: Year]>([:])

    /// The year's entry, computed by `make` the first time it is asked for; kept only when
    /// `make` says it is complete.
    func year(_ year: Int, make: () -> (Year, complete: Bool)) -> Year {
        if let known = years.withLock({ $0[year] }) { return known }
        let (made, complete) = make()
        if complete { years.withLock { $0[year] = made } }
        return made
    }
}
