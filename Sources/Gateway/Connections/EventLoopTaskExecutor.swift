import NIOCore
import NIOPosix

/// SwiftNIO's shared event loops as one Swift task executor: a request's task prefers it
/// (`RequestDispatchHandler`), and its nonisolated code runs on the loops without a hop at
/// every call.
///
/// SwiftNIO's event loops are Swift Concurrency's global executor (`DaygateMain`), but they run
/// each job as the event loop's own serial executor, not as generic code. So every call into a
/// nonisolated `async` function — the gateway's, Hummingbird's, AsyncHTTPClient's — was a switch
/// the runtime could not make in place: it queued the task on the event loop again and took it up
/// in the loop's next turn, about 600 times for one cold `/v1/today`. A task with this executor as
/// its preference runs its jobs as generic code on this executor, so such a call goes straight on
/// (the runtime's switch finds the same executor). Calls into an actor still queue, as before,
/// and coming back from one queues too (about 90 each per cold day).
///
/// A job goes where SwiftNIO's takeover would have sent it (`EventLoopGroup.any()`): to the loop
/// that queues it, when it is one of the shared loops (a task resumed by an upstream answer goes
/// on where the answer was read), else to the next loop. So a request's sections still spread
/// over the loops as their answers come in; only the hops are gone.
final class EventLoopTaskExecutor: TaskExecutor {
    /// The executor of the shared loops (`MultiThreadedEventLoopGroup.singleton`, where the
    /// server and the shared HTTP client run), made once and kept for the life of the process: a
    /// task holds its preference without owning it.
    static let shared = EventLoopTaskExecutor(group: .singleton)

    let group: MultiThreadedEventLoopGroup
    private let loops: Set<ObjectIdentifier>

    private init(group: MultiThreadedEventLoopGroup) {
        self.group = group
        self.loops = Set(group.makeIterator().map { ObjectIdentifier($0) })
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        group.any().execute { job.runSynchronously(on: executor) }
    }

    /// The executor for a connection on `loop`: `shared` when `loop` is one of the shared loops;
    /// nil otherwise (tests' embedded loops), where tasks start without a preference.
    static func of(_ loop: any EventLoop) -> EventLoopTaskExecutor? {
        shared.loops.contains(ObjectIdentifier(loop)) ? shared : nil
    }
}
