import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Model
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import Gateway

/// A request's task and the work started for it run on the shared event loops as generic
/// code (`EventLoopTaskExecutor`, `TaskPlacement`).
@Suite struct EventLoopTaskExecutorTests {
    /// The shared loops have one executor, the same for each; any other loop has none.
    @Test func theSharedLoopsHaveOneExecutor() {
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        #expect(!loops.isEmpty)
        for loop in loops {
            #expect(EventLoopTaskExecutor.of(loop) === EventLoopTaskExecutor.shared)
        }
        #expect(EventLoopTaskExecutor.of(EmbeddedEventLoop()) == nil)
    }

    /// A task preferring it runs every step on a shared loop (after a nonisolated call, a yield,
    /// a sleep, a continuation resumed from a loop, in a child task), and a step goes on on the
    /// loop that resumed it, as SwiftNIO's takeover sends it there. (A resume that comes while
    /// the task is still suspending lets the task go on where it was: each loop resumes it
    /// twenty times, a millisecond after it waits, and most of them must land there.)
    @Test(.timeLimit(.minutes(1))) func aTaskPreferringItRunsOnTheLoopThatResumesIt() async throws {
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let (steps, resumedThere) = await Task(executorPreference: EventLoopTaskExecutor.shared) {
            () async -> ([String], [Int]) in
            func onALoop() -> String { MultiThreadedEventLoopGroup.currentEventLoop != nil ? "loop" : "elsewhere" }
            var steps = [onALoop()]
            await Self.nonisolatedStep()
            steps.append(onALoop())
            await Task.yield()
            steps.append(onALoop())
            try? await Task.sleep(for: .milliseconds(1))
            steps.append(onALoop())
            var resumedThere: [Int] = []
            for loop in loops {
                var there = 0
                for _ in 0..<20 {
                    await withCheckedContinuation { continuation in
                        loop.scheduleTask(in: .milliseconds(1)) { continuation.resume() }
                    }
                    if loop.inEventLoop { there += 1 }
                    steps.append(onALoop())
                }
                resumedThere.append(there)
            }
            let child = await withTaskGroup(of: String.self) { group in
                group.addTask { onALoop() }
                return await group.next() ?? ""
            }
            steps.append(child)
            return (steps, resumedThere)
        }.value
        #expect(steps.allSatisfy { $0 == "loop" }, "\(steps)")
        #expect(steps.count == 5 + 20 * loops.count)
        #expect(resumedThere.allSatisfy { $0 > 10 }, "\(resumedThere)")
    }

    nonisolated static func nonisolatedStep() async {}

    /// A request served by the gateway's own channel: its task prefers the shared loops'
    /// executor and says so to the work it starts (`TaskPlacement.preferred`), and that work (a
    /// bounded call, as every upstream call is) prefers it and runs on a shared loop too.
    @Test(.timeLimit(.minutes(1))) func aRequestsWorkPrefersItsConnectionsLoop() async throws {
        let seen = Mutex<[String]>([])
        let respond: GatewayHTTP1Channel.Respond = { _, channel in
            let executor = EventLoopTaskExecutor.of(channel.eventLoop)
            let request = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
            let told = TaskPlacement.preferred.map { ObjectIdentifier($0) }
            let call = try await BoundedWait.run(until: .now + .seconds(30)) { () -> [Bool] in
                [
                    withUnsafeCurrentTask { $0?.unownedTaskExecutor } == executor?.asUnownedTaskExecutor(),
                    MultiThreadedEventLoopGroup.currentEventLoop != nil,
                ]
            }
            let facts: [String] = [
                executor != nil ? "shared loop" : "other loop",
                request == executor?.asUnownedTaskExecutor() ? "request prefers it" : "request does not",
                told == executor.map { ObjectIdentifier($0) } ? "told" : "not told",
                call[0] ? "call prefers it" : "call does not",
                call[1] ? "call on a shared loop" : "call elsewhere",
            ]
            seen.withLock { $0.append(facts.joined(separator: ", ")) }
            return Response(status: .noContent)
        }
        let app = Application(
            responder: CallbackResponder<BasicRequestContext> { _, _ in Response(status: .notFound) },
            server: HTTPServerBuilder { _ in
                GatewayHTTP1Channel(respond: respond, budget: .forTests(), answers: nil)
            },
            configuration: .init(address: .hostname("127.0.0.1", port: 0))
        )
        try await app.test(.live) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/", method: .get) { response in
                    #expect(response.status == .noContent)
                }
            }
        }
        #expect(
            seen.withLock { $0 }
                == Array(
                    repeating: "shared loop, request prefers it, told, call prefers it, call on a shared loop", count: 3
                ))
    }
}
