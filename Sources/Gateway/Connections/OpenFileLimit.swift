#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`): every connection, upstream socket, SQLite
/// file and timer takes a descriptor from it.
public enum OpenFileLimit {
    /// The soft limit in force (what `open`, `accept` and `socket` are held to) and the hard
    /// limit it may be raised to.
    public static func current() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return (1024, 1024) }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (the most an unprivileged process may take) and
    /// returns it before and after; it stays where it was when the system refuses.
    @discardableResult
    public static func raiseToHard() -> (before: Int, after: Int) {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return (1024, 1024) }
        let before = clamp(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        var raised = limit
        raised.rlim_cur = limit.rlim_max == unlimited ? rlim_t(ceiling) : limit.rlim_max
        guard setrlimit(resourceNumber, &raised) == 0 else { return (before, before) }
        return (before, clamp(raised.rlim_cur))
    }

    /// `RLIM_INFINITY` (all bits set; the C macro does not import).
    private static let unlimited = rlim_t.max

    /// What an unlimited hard limit is raised to (Linux's default `fs.nr_open`).
    private static let ceiling = 1_048_576

    private static func clamp(_ value: rlim_t) -> Int {
        value == unlimited || value > rlim_t(ceiling) ? ceiling : Int(value)
    }

    #if canImport(Glibc)
        private static let resourceNumber = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceNumber = RLIMIT_NOFILE
    #endif
}
