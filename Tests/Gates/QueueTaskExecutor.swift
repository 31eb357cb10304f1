import Dispatch

/// Test support: a task executor of the test's own (its jobs run on a serial dispatch queue), to
/// see which work prefers it (`TaskPlacement.preferred`).
public final class QueueTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "daygate.tests.task-executor")

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Whether the task running this prefers this executor.
    public var isPreferredHere: Bool {
        withUnsafeCurrentTask { $0?.unownedTaskExecutor } == asUnownedTaskExecutor()
    }
}
