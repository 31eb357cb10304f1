/// How much one calendar feed may cost the gateway. A feed is untrusted input: a few kilobytes
/// of `RRULE:FREQ=MINUTELY` ask for millions of instances. Every limit is far above what a real
/// household feed needs — a school's calendar with thousands of events over years reads and
/// expands within a few percent of them — and a limit that is reached is reported as an
/// `ICSIssue` of kind `.limit` saying what was left out.
public struct ICSLimits: Sendable, Equatable {
    /// Bytes of one feed (5 MB; real feeds are tens to hundreds of kilobytes).
    public var maximumBytes: Int
    /// Components nested inside each other: VCALENDAR › VEVENT › VALARM is three, VCALENDAR ›
    /// VTIMEZONE › STANDARD too. Deeper blocks are ignored.
    public var maximumDepth: Int
    /// Occurrences one expansion returns, every series of the feed together.
    public var maximumInstances: Int
    /// Instances of one series in one expansion.
    public var maximumSeriesInstances: Int
    /// Units of work one reading, or one expansion, may do: a content line read, an event read,
    /// a candidate date a recurrence rule looks at, an RDATE or EXDATE looked at, an occurrence made.
    public var maximumSteps: Int
    /// How long one reading, or one expansion, may run (wall-clock time on its thread).
    public var maximumDuration: Duration

    public init(
        maximumBytes: Int = 5_000_000, maximumDepth: Int = 8, maximumInstances: Int = 20_000,
        maximumSeriesInstances: Int = 10_000, maximumSteps: Int = 5_000_000, maximumDuration: Duration = .seconds(2)
    ) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumInstances = maximumInstances
        self.maximumSeriesInstances = maximumSeriesInstances
        self.maximumSteps = maximumSteps
        self.maximumDuration = maximumDuration
    }

    /// The gateway's limits.
    public static let standard = ICSLimits()
}
