import NIOCore
import NIOPosix

/// One of SwiftNIO's shared event loops as a Swift task executor: a request's task prefers the
/// event loop of its connection (`RequestDispatchHandler`), and its nonisolated code runs there
/// without a hop at every call.
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
/// Only the shared loops (`MultiThreadedEventLoopGroup.singleton`, where the server and the
/// shared HTTP client run) have one, made once and kept for the life of the process: a task
/// holds its preference without owning it. A connection on any other loop (tests' embedded
/// loops) starts its tasks without a preference.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }

    /// The executor of `loop` when it is one of the shared event loops; nil otherwise.
    static func of(_ loop: any EventLoop) -> EventLoopTaskExecutor? {
        shared[ObjectIdentifier(loop)]
    }

    private static let shared: [ObjectIdentifier: EventLoopTaskExecutor] = {
        var executors: [ObjectIdentifier: EventLoopTaskExecutor] = [:]
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            executors[ObjectIdentifier(loop)] = EventLoopTaskExecutor(eventLoop: loop)
        }
        return executors
    }()
}
