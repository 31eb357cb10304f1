/// Where a request's work prefers to run: the task executor of the shared event loops, set for
/// the request's task and inherited by every task it starts — its child tasks by Swift
/// itself, and the unstructured tasks the gateway starts for it (a shared fetch, the deadline of
/// a call, a composition), which ask `Task(executorPreference: TaskPlacement.preferred)`.
///
/// Why: without a preference, a task runs as the event loop's own serial executor, and every
/// call into a nonisolated `async` function is a switch the runtime cannot make in place (it
/// queues the task on the loop again); with one, such a call goes straight on
/// (`EventLoopTaskExecutor`). nil outside a request, where tasks start as before.
public enum TaskPlacement {
    @TaskLocal public static var preferred: (any TaskExecutor)?
}
