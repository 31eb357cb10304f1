import Synchronization

/// The work one reading or one expansion of a feed may still do: a number of steps, a deadline
/// and a stop switch another thread may turn (a cancelled request, a shutting-down gateway).
/// The reader spends from it as it goes and stops, keeping what it has, when it is used up.
///
/// Deep code that has no budget parameter (a feed-defined time zone working out a year's
/// transitions inside a date conversion) spends from `ICSWorkBudget.current`, which
/// `ICSCalendar` binds while it reads or expands.
public final class ICSWorkBudget: Sendable {
    /// Why the work stopped.
    public enum Stop: Int, Sendable, Equatable {
        case steps = 1
        case deadline
        case cancelled
    }

    /// The budget of the reading or expansion running on this thread (or task), if any.
    @TaskLocal public static var current: ICSWorkBudget?

    public let maximumSteps: Int
    public let maximumDuration: Duration
    public let deadline: ContinuousClock.Instant
    /// A wider budget this one is part of (an answer's, for one of its feeds): when it stops, this stops.
    public let parent: ICSWorkBudget?

    private let spent = Atomic<Int>(0)
    private let calls = Atomic<Int>(0)
    private let stopped = Atomic<Int>(0)

    public init(
        maximumSteps: Int = .max, maximumDuration: Duration = .seconds(60), parent: ICSWorkBudget? = nil
    ) {
        self.maximumSteps = maximumSteps
        self.maximumDuration = maximumDuration
        let own = ContinuousClock.now.advanced(by: maximumDuration)
        self.deadline = parent.map { min($0.deadline, own) } ?? own
        self.parent = parent
    }

    /// A budget from `limits`' steps and duration, starting now.
    public convenience init(_ limits: ICSLimits, parent: ICSWorkBudget? = nil) {
        self.init(maximumSteps: limits.maximumSteps, maximumDuration: limits.maximumDuration, parent: parent)
    }

    /// Steps spent so far.
    public var stepsSpent: Int { spent.load(ordering: .relaxed) }

    /// Why the work stopped, or nil while it may go on.
    public var stop: Stop? { Stop(rawValue: stopped.load(ordering: .relaxed)) }

    /// Whether the work must stop.
    public var isExhausted: Bool { stopped.load(ordering: .relaxed) != 0 }

    /// Stops the work from any thread: the reader notices within a few thousand steps.
    public func cancel() { halt(.cancelled) }

    /// Records `steps` units of work; false when the work must stop (steps used up, the deadline
    /// passed, cancelled). The clock is read once every 1,024 calls.
    @discardableResult
    public func spend(_ steps: Int = 1) -> Bool {
        if stopped.load(ordering: .relaxed) != 0 { return false }
        let total = spent.add(steps, ordering: .relaxed).newValue
        if total > maximumSteps {
            halt(.steps)
            return false
        }
        if calls.add(1, ordering: .relaxed).newValue & 1023 == 0 { return check() }
        return true
    }

    /// Reads the clock and the parent now; false when the work must stop.
    @discardableResult
    public func check() -> Bool {
        if stopped.load(ordering: .relaxed) != 0 { return false }
        if let parent, !parent.check() {
            halt(parent.stop ?? .deadline)
            return false
        }
        if ContinuousClock.now >= deadline {
            halt(.deadline)
            return false
        }
        return true
    }

    private func halt(_ reason: Stop) {
        _ = stopped.compareExchange(expected: 0, desired: reason.rawValue, ordering: .relaxed)
    }

    /// Why the work stopped, in words, for an issue: "it needed more than 5000000 steps of
    /// work", "it took longer than 2 s", "it was cancelled".
    public var stopDescription: String {
        switch stop {
        case .steps: return "it needed more than \(maximumSteps) steps of work"
        case .deadline: return "it took longer than \(Self.describe(maximumDuration))"
        case .cancelled: return "it was cancelled"
        case nil: return "it was not stopped"
        }
    }

    /// `2 s`, `250 ms`.
    static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
