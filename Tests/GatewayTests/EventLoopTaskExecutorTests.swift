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

    /// A task preferring it runs every step on a shared loop, and a step goes on on the loop
    /// that resumed it (as SwiftNIO's takeover sends it there): after a nonisolated call, a
    /// yield, a sleep, a continuation resumed from each loop, and in a child task.
    @Test(.timeLimit(.minutes(1))) func aTaskPreferringItRunsOnTheLoopThatResumesIt() async throws {
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let steps = await Task(executorPreference: EventLoopTaskExecutor.shared) { () async -> [String] in
            func onALoop() -> String { MultiThreadedEventLoopGroup.currentEventLoop != nil ? "loop" : "elsewhere" }
            var steps = [onALoop()]
            await Self.nonisolatedStep()
            steps.append(onALoop())
            await Task.yield()
            steps.append(onALoop())
            try? await Task.sleep(for: .milliseconds(1))
            steps.append(onALoop())
            for loop in loops {
                await withCheckedContinuation { continuation in loop.execute { continuation.resume() } }
                steps.append(loop.inEventLoop ? "resumer" : "another")
            }
            let child = await withTaskGroup(of: String.self) { group in
                group.addTask { onALoop() }
                return await group.next() ?? ""
            }
            steps.append(child)
            return steps
        }.value
        #expect(steps == ["loop", "loop", "loop", "loop"] + loops.map { _ in "resumer" } + ["loop"])
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
