import Foundation
import HummingbirdWSClient
import Logging
import Model

/// Listens to 8alls' WebSocket `/ws` and reports every message as a hint that events changed.
/// The real server only ever delivers `event_deleted`, and after a create or update its
/// broadcast fails and the socket goes silent for good (docs/backends/eightalls.md), so this is a
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

    /// A message's `type` (`event_deleted`, …), or `message` when it names none.
    static func hintType(_ text: String) -> String {
        let value = try? JSONValue(parsing: Data(text.utf8))
        return value?["type"]?.stringValue ?? "message"
    }

    /// Runs until the task is cancelled. `onHint` gets the message type (`event_deleted`, …).
    ///
    /// The connection runs in a task of its own that this loop never awaits: a handshake the
    /// server drops with a plain close can hang in the WebSocket client and ignore
    /// cancellation, and that must not hold up reconnecting or the gateway's shutdown.
    public func run(logger: Logger, onHint: @escaping @Sendable (String) async -> Void) async {
        var backoff = Duration.seconds(1)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let (ended, signal) = AsyncStream<Void>.makeStream()
            let connection = Task {
                do {
                    _ = try await WebSocketClient.connect(url: url, logger: logger) { inbound, _, _ in
                        for try await message in inbound.messages(maxSize: 1 << 16) {
                            guard case .text(let text) = message, text != "pong" else { continue }
                            await onHint(Self.hintType(text))
                        }
                    }
                } catch {
                    logger.debug(
                        "8alls websocket unavailable", metadata: ["url": "\(url)", "error.type": "\(type(of: error))"])
                }
                signal.yield()
            }
            let renewal = Task {
                try? await Task.sleep(for: reconnectAfter)
                signal.yield()
            }
            // Ends on the first signal, or at once when this task is cancelled.
            for await _ in ended { break }
            connection.cancel()
            renewal.cancel()
            if Task.isCancelled { return }
            if ContinuousClock.now - started > .seconds(30) { backoff = .seconds(1) }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, maximumBackoff)
        }
    }
}
