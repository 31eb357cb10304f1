import Foundation
import HummingbirdWebSocket
import Logging
import Model
import Synchronization

/// `routes/websocket.py`: the `ConnectionManager` behind 8alls' `/ws`, bug for bug.
///
/// - `connect` appends a socket after accepting it; the receive loop answers the text `ping`
///   with the plain text `pong` and ignores every other text.
/// - `broadcast` sends the envelope `{"type","data","timestamp"}` to every listed socket, and a
///   socket whose send raises is removed from the list **without being closed**.
/// - The routes broadcast `event_created` / `event_updated` with `Event.from_orm(e).dict()`,
///   which holds `datetime` objects: `send_json` raises "Object of type datetime is not JSON
///   serializable" for every socket, so every socket connected at that moment is silently
///   dropped from the list. It stays open (pings still get `pong`) but never receives another
///   broadcast. Only `event_deleted` (`{"id":…}`) is ever delivered, and only to sockets that
///   connected after the last create or update.
final class EightAllsConnectionManager: Sendable {
    /// What a route hands to `broadcast_event`.
    enum Payload: Sendable {
        /// Plain JSON data, e.g. `{"id":"…"}` for `event_deleted`.
        case json(JSONValue)
        /// `Event.from_orm(e).dict()`: contains `datetime` objects, so `json.dumps` raises.
        case eventWithDatetimes
    }

    private struct Connection: Sendable {
        let id: Int
        let outbound: WebSocketOutboundWriter
    }

    private struct State {
        var active: [Connection] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Sockets currently in `active_connections`.
    var activeCount: Int { state.withLock { $0.active.count } }

    /// `manager.connect`: lists an accepted socket; returns its handle.
    func connect(_ outbound: WebSocketOutboundWriter) -> Int {
        state.withLock { s in
            defer { s.nextID += 1 }
            s.active.append(Connection(id: s.nextID, outbound: outbound))
            return s.nextID
        }
    }

    /// `manager.disconnect`: `list.remove`; false when the socket was no longer listed
    /// (Python raises `ValueError` there).
    @discardableResult
    func disconnect(_ id: Int) -> Bool {
        state.withLock { s in
            guard let index = s.active.firstIndex(where: { $0.id == id }) else { return false }
            s.active.remove(at: index)
            return true
        }
    }

    /// `broadcast_event(event_type, data)`: one message to every listed socket, in list order;
    /// every socket whose send fails is removed from the list (and left open).
    func broadcast(_ type: String, _ payload: Payload) async {
        let connections = state.withLock { $0.active }
        guard !connections.isEmpty else { return }
        let text: String?
        switch payload {
        case .json(let data):
            // datetime.utcnow().isoformat(): naive, fraction only when non-zero.
            let micros = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded(.down))
            let message = JSONValue.object([
                "type": .string(type), "data": data, "timestamp": .string(Civil.isoString(micros)),
            ])
            text = message.serialized
        case .eventWithDatetimes:
            text = nil
        }
        var failed: Set<Int> = []
        for connection in connections {
            guard let text else {
                failed.insert(connection.id)  // send_json: TypeError before anything is sent
                continue
            }
            do {
                try await connection.outbound.write(.text(text))
            } catch {
                failed.insert(connection.id)
            }
        }
        if !failed.isEmpty {
            state.withLock { $0.active.removeAll { failed.contains($0.id) } }
        }
    }

    /// `websocket_endpoint`: the handler of one accepted `/ws` connection.
    ///
    /// A binary message makes `receive_text()` raise `KeyError`: the endpoint's `except Exception`
    /// takes the socket off the list and returns, and uvicorn 0.27 does not close a socket whose
    /// app returned without closing it. The socket stays open and silent: a later `ping` gets no
    /// `pong`, and only the client's own close ends it, echoed with 1000 (recorded: 076).
    /// When the client closes a socket the broadcast had already dropped, `manager.disconnect`
    /// raises `ValueError` after the close, so the client still sees a clean 1000 (073-075).
    var handler: SimWebSocketHandler {
        { inbound, outbound, _ in
            let id = self.connect(outbound)
            do {
                var returned = false
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard !returned else { continue }
                    guard case .text(let text) = message else {
                        self.disconnect(id)
                        returned = true
                        continue
                    }
                    if text == "ping" {
                        try await outbound.write(.text("pong"))
                    }
                }
            } catch {
                // Cancelled (the simulator stops) or the connection failed.
                self.disconnect(id)
                throw error
            }
            // WebSocketDisconnect: manager.disconnect(websocket); the close is already answered.
            self.disconnect(id)
        }
    }
}
