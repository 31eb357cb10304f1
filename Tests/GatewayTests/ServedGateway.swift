import Foundation
import Gateway
import Model

/// Serves `gateway` on a free loopback port for the length of `body`, which gets the port; the
/// server stops (its task cancelled) however `body` ends. A server that fails to start ends
/// the wait for its port with `RawFuzzError.noPort`.
func withServedGateway<Value: Sendable>(
    _ gateway: ReloadableGateway, _ body: (Int) async throws -> Value
) async throws -> Value {
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let app = GatewayApplication.make(
        gateway: gateway, listen: ListenAddress(host: "127.0.0.1", port: 0),
        onServerRunning: { port in portContinuation.yield(port) })
    return try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask {
            defer { portContinuation.finish() }
            try await app.runService(gracefulShutdownSignals: [])
            return nil
        }
        defer { group.cancelAll() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw RawFuzzError.noPort }
        return try await body(port)
    }
}
