import Logging
import NIOCore
import NIOEmbedded
import ServiceLifecycle
import Testing

@testable import Gateway

/// A cancelled server's connections (`OpenConnectionsCloser`): a connection between requests has
/// no task for the cancellation to end, so the closer closes every open one; a graceful shutdown
/// leaves them to Hummingbird's quiescing, which closes each once its answer is written.
@Suite struct OpenConnectionsCloserTests {
    static func connections(_ count: Int, in budget: ConnectionBudget) async throws -> [NIOAsyncTestingChannel] {
        var channels: [NIOAsyncTestingChannel] = []
        for _ in 0..<count {
            let channel = NIOAsyncTestingChannel()
            try await channel.connect(to: .init(ipAddress: "127.0.0.1", port: 8080))
            budget.register(channel)
            channels.append(channel)
        }
        return channels
    }

    /// `count` connections registered with a budget whose closer runs in a service group: the
    /// connections, the group and the task running it.
    static func running(_ count: Int) async throws -> ([NIOAsyncTestingChannel], ServiceGroup, Task<Void, any Error>) {
        let budget = ConnectionBudget.forTests()
        let channels = try await Self.connections(count, in: budget)
        let group = ServiceGroup(
            configuration: .init(services: [OpenConnectionsCloser(budget: budget)], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(50))
        return (channels, group, running)
    }

    @Test func aCancelledServerClosesEveryOpenConnection() async throws {
        let (channels, _, running) = try await Self.running(3)
        running.cancel()
        _ = try? await running.value
        for channel in channels {
            for _ in 0..<500 where channel.isActive { try await Task.sleep(for: .milliseconds(5)) }
            #expect(!channel.isActive, "a connection stayed open after the server was cancelled")
        }
    }

    @Test func aGracefulShutdownLeavesTheConnectionsToQuiescing() async throws {
        let (channels, group, running) = try await Self.running(2)
        await group.triggerGracefulShutdown()
        try await running.value
        for channel in channels {
            #expect(channel.isActive, "a graceful shutdown closed a connection")
            try await channel.close()
        }
    }
}
