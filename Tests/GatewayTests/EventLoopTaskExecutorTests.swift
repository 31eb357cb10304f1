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

/// A request's task and the work started for it run on its connection's event loop as generic
/// code (`EventLoopTaskExecutor`, `TaskPlacement`).
@Suite struct EventLoopTaskExecutorTests {
    /// Each shared event loop has one executor, the same every time; any other loop has none.
    @Test func eachSharedLoopHasItsOwnExecutor() {
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        #expect(!loops.isEmpty)
        for loop in loops {
            let executor = EventLoopTaskExecutor.of(loop)
            #expect(executor != nil)
            #expect(executor === EventLoopTaskExecutor.of(loop))
            #expect(executor?.eventLoop === loop)
        }
        #expect(Set(loops.compactMap { EventLoopTaskExecutor.of($0).map(ObjectIdentifier.init) }).count == loops.count)
        #expect(EventLoopTaskExecutor.of(EmbeddedEventLoop()) == nil)
    }

    /// A task preferring a loop's executor runs every step on that loop: after a nonisolated
    /// call, a yield, a sleep and in a child task.
    @Test(.timeLimit(.minutes(1))) func aTaskPreferringALoopRunsOnIt() async throws {
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            let executor = try #require(EventLoopTaskExecutor.of(loop))
            let steps = await Task(executorPreference: executor) { () async -> [Bool] in
                var steps = [loop.inEventLoop]
                await Self.nonisolatedStep()
                steps.append(loop.inEventLoop)
                await Task.yield()
                steps.append(loop.inEventLoop)
                try? await Task.sleep(for: .milliseconds(1))
                steps.append(loop.inEventLoop)
                let child = await withTaskGroup(of: Bool.self) { group in
                    group.addTask { loop.inEventLoop }
                    return await group.next() ?? false
                }
                steps.append(child)
                return steps
            }.value
            #expect(steps == [true, true, true, true, true])
        }
    }

    nonisolated static func nonisolatedStep() async {}

    /// A request served by the gateway's own channel: its task prefers the executor of its
    /// connection's loop and says so to the work it starts (`TaskPlacement.preferred`), and
    /// that work (a bounded call, as every upstream call is) runs there too.
    @Test(.timeLimit(.minutes(1))) func aRequestsWorkPrefersItsConnectionsLoop() async throws {
        let seen = Mutex<[String]>([])
        let respond: GatewayHTTP1Channel.Respond = { _, channel in
            let executor = EventLoopTaskExecutor.of(channel.eventLoop)
            let request = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
            let told = TaskPlacement.preferred.map { ObjectIdentifier($0) }
            let call = try await BoundedWait.run(until: .now + .seconds(30)) { () -> [Bool] in
                [
                    withUnsafeCurrentTask { $0?.unownedTaskExecutor } == executor?.asUnownedTaskExecutor(),
                    channel.eventLoop.inEventLoop,
                ]
            }
            let facts: [String] = [
                executor != nil ? "shared loop" : "other loop",
                request == executor?.asUnownedTaskExecutor() ? "request prefers it" : "request does not",
                told == executor.map { ObjectIdentifier($0) } ? "told" : "not told",
                call[0] ? "call prefers it" : "call does not",
                call[1] ? "call on the loop" : "call elsewhere",
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
                    repeating: "shared loop, request prefers it, told, call prefers it, call on the loop", count: 3))
    }
}
