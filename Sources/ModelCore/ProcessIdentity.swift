/// Which process holds something that processes sharing one state folder take turns at (a
/// vault lease): the boot it runs in, its PID namespace, its process id and the moment it
/// started. The start tells a reused process id from the holder; the boot tells a holder from
/// before a restart of the machine; the namespace says whether this process can see the holder
/// at all (two containers sharing one volume cannot see each other's processes).
public struct ProcessIdentity: Hashable, Sendable {
    /// The kernel's boot id (empty when not known).
    public var boot: String
    /// The PID namespace's id (empty when not known).
    public var namespace: String
    public var pid: Int32
    /// When the process started, in the kernel's clock ticks since boot (0 when not known).
    public var start: UInt64

    public init(boot: String, namespace: String, pid: Int32, start: UInt64) {
        self.boot = boot
        self.namespace = namespace
        self.pid = pid
        self.start = start
    }

    /// Whether a holder's process still runs, as another process can tell.
    public enum Liveness: Equatable, Sendable {
        case running
        /// It has ended: its id is free or taken by a later process, or the machine restarted.
        case gone
        /// This process cannot tell (another namespace, no /proc): only the lease's end decides.
        case unknown
    }

    /// What `observer` can tell of this (the holder's) process, given what the observer's
    /// system says of the holder's process id: `startOfPID` is nil when the observer cannot read
    /// it at all, `.some(nil)` when no process has that id, `.some(start)` the start of the
    /// process that has it now.
    public func liveness(seenFrom observer: ProcessIdentity, startOfPID: UInt64??) -> Liveness {
        guard !boot.isEmpty, !observer.boot.isEmpty else { return .unknown }
        guard boot == observer.boot else { return .gone }
        guard !namespace.isEmpty, namespace == observer.namespace, start != 0 else { return .unknown }
        guard let startOfPID else { return .unknown }
        guard let now = startOfPID else { return .gone }
        return now == start ? .running : .gone
    }

    /// The identity as one word (no spaces, no slashes), as a lease's holder carries it.
    public var text: String { "\(boot):\(namespace):\(pid):\(start)" }

    /// The identity `text` wrote, or nil when `word` is not one.
    public init?(text word: Substring) {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, let pid = Int32(parts[2]), pid > 0, let start = UInt64(parts[3]) else { return nil }
        self.init(boot: String(parts[0]), namespace: String(parts[1]), pid: pid, start: start)
    }

    /// The `start` field of a `/proc/<pid>/stat` line (the 22nd; the process's name, the 2nd,
    /// sits in parentheses and may itself hold spaces and parentheses), or nil when `line` has none.
    public static func start(ofStatLine line: Substring) -> UInt64? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        // fields[0] is the 3rd field (state); the start is the 22nd.
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}
