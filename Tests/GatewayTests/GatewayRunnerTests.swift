import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import daygate

/// What `serve` and `demo` say when the gateway stops because it could not listen.
struct GatewayRunnerTests {
    /// A port another program holds: the gateway says so in words and what to do, instead of
    /// SwiftNIO's `bind(descriptor:ptr:bytes:)` and an errno.
    @Test func aTakenPortIsSaidInWords() async throws {
        let holder = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(holder.localAddress?.port)
        var failure: (any Error)?
        do {
            _ = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: port).get()
        } catch {
            failure = error
        }
        let said = GatewayRunner.describe(try #require(failure))
        #expect(said.hasPrefix("its address is in use"), "\(said)")
        #expect(said.contains("--port") && !said.contains("errno"))
        #expect(GatewayRunner.describe(CancellationError()) == "\(CancellationError())")
        try await holder.close()
    }
}
