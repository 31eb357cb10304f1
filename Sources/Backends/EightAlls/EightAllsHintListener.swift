import Foundation
import HummingbirdWSClient
import Logging
import Model

/// Listens to 8alls' WebSocket `/ws` and reports every message as a hint that events changed.
/// The real server only ever delivers `event_deleted`, and after a create or update its
/// broadcast fails and the socket goes silent for good (contracts/eightalls.md), so this is a
/// hint only: polling by TTL stays the ground truth. The connection is renewed every few
/// minutes (a silenced socket never recovers on its own) and after failures with backoff.
public struct EightAllsHintListener: Sendable {
    public let url: String
    public var reconnectAfter: Duration
    public var maximumBackoff: Duration

    public init(url: String, reconnectAfter: Duration = .seconds(300), maximumBackoff: Duration = .seconds(60)) {
        self.url = url
        self.reconnectAfter = reconnectAfter
        self.maximumBackoff = maximumBackoff
    }

    /// `ws://host:port/ws` for an 8alls base URL such as `http://host:port/api`.
    public static func url(for endpoint: BackendEndpoint) -> String? {
        guard var components = URLComponents(string: endpoint.baseURL) else { return nil }
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        var path = components.path
        if path.hasSuffix("/api") { path.removeLast(4) }
        components.path = path + "/ws"
        components.query = nil
        return components.string
    }

    /// Runs until the task is cancelled. `onHint` gets the message type (`event_deleted`, …).
    public func run(logger: Logger, onHint: @escaping @Sendable (String) async -> Void) async {
        var backoff = Duration.seconds(1)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        _ = try await WebSocketClient.connect(url: url, logger: logger) { inbound, _, _ in
                            for try await message in inbound.messages(maxSize: 1 << 16) {
                                guard case .text(let text) = message, text != "pong" else { continue }
                                let value = try? JSONCoding.decoder.decode(JSONValue.self, from: Data(text.utf8))
                                await onHint(value?["type"]?.stringValue ?? "message")
                            }
                        }
                    }
                    group.addTask { try await Task.sleep(for: reconnectAfter) }
                    _ = try await group.next()
                    group.cancelAll()
                }
            } catch is CancellationError {
                return
            } catch {
                logger.debug("8alls websocket unavailable", metadata: ["url": "\(url)", "error.type": "\(type(of: error))"])
            }
            if ContinuousClock.now - started > .seconds(30) { backoff = .seconds(1) }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, maximumBackoff)
        }
    }
}
