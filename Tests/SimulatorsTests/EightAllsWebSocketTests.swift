import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import Synchronization
import Testing

@testable import Simulators

/// A WebSocket client for tests: received texts queue up for ``next(timeout:)``, ``send(_:)``
/// writes a text, ``close()`` ends the connection from the client side.
final class TestSocket: Sendable {
    private final class Inbox: Sendable {
        struct State {
            var texts: [String] = []
            var ended = false
        }

        let state = Mutex(State())
    }

    private let inbox = Inbox()
    private let outgoing: AsyncStream<WebSocketMessage>.Continuation
    let task: Task<WebSocketCloseFrame?, any Error>

    private init(url: String) {
        let (outgoing, outgoingContinuation) = AsyncStream<WebSocketMessage>.makeStream()
        self.outgoing = outgoingContinuation
        var logger = Logger(label: "test.ws")
        logger.logLevel = .critical
        let inbox = self.inbox
        self.task = Task {
            defer { inbox.state.withLock { $0.ended = true } }
            return try await WebSocketClient.connect(url: url, logger: logger) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message { inbox.state.withLock { $0.texts.append(text) } }
                        }
                    }
                    group.addTask {
                        for await message in outgoing {
                            switch message {
                            case .text(let text): try await outbound.write(.text(text))
                            case .binary(let bytes): try await outbound.write(.binary(bytes))
                            }
                        }
                    }
                    // Either the server closed (reader done) or close() finished `outgoing` (writer done).
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// Connects to the simulator's `path` and waits for a ping/pong round trip, so the server
    /// has listed the socket when this returns.
    static func connect(_ sim: RunningSimulator, path: String = "/ws") async throws -> TestSocket {
        let socket = TestSocket(url: "ws://127.0.0.1:\(sim.port)\(path)")
        socket.send("ping")
        let answer = await socket.next()
        guard answer == "pong" else {
            await socket.close()
            throw NoPong(answer: answer)
        }
        return socket
    }

    struct NoPong: Error {
        var answer: String?
    }

    func send(_ text: String) {
        outgoing.yield(.text(text))
    }

    func sendBinary(_ bytes: [UInt8]) {
        outgoing.yield(.binary(ByteBuffer(bytes: bytes)))
    }

    /// The next received text; nil when the connection ended or nothing came within `timeout`.
    func next(timeout: Duration = .seconds(5)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (text, ended): (String?, Bool) = inbox.state.withLock { box in
                box.texts.isEmpty ? (nil, box.ended) : (box.texts.removeFirst(), false)
            }
            if let text { return text }
            if ended || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether the connection has ended (the server closed it, or ``close()`` ran).
    var isEnded: Bool { inbox.state.withLock { $0.ended } }

    /// Ends the connection from the client side and waits for it to finish.
    func close() async {
        outgoing.finish()
        _ = try? await task.value
    }

    /// Ends the connection from the client side; the server's close frame, if one came.
    func closeFrame() async -> WebSocketCloseFrame? {
        outgoing.finish()
        return (try? await task.value) ?? nil
    }
}

@Suite("8alls WebSocket /ws")
struct EightAllsWebSocketTests {
    /// `datetime.utcnow().isoformat()`: naive, seconds, six fraction digits only when non-zero.
    static func isNaiveTimestamp(_ s: String) -> Bool {
        s.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?/) != nil && !s.hasSuffix(".000000")
    }

    /// The ids of the seeded events, in start order.
    static func eventIDs(_ client: HTTPClient, _ sim: RunningSimulator) async throws -> [String] {
        try await client.send(sim, "/api/events").array.compactMap { $0["id"] as? String }
    }

    static let newEvent = #"{"title":"Dentist","start_time":"2026-11-24T09:00:00Z","end_time":"2026-11-24T09:30:00Z"}"#

    @Test func pingGetsPlainPongAndOtherTextIsIgnored() async throws {
        try await withEightAlls { sim, client in
            let socket = try await TestSocket.connect(sim)  // ping → pong
            socket.send("hello")
            socket.send("PING")
            socket.send(#"{"type":"ping"}"#)
            socket.send("ping")
            #expect(await socket.next() == "pong")  // the ignored texts got no answer
            #expect(sim.control.calls("GET /ws") == 1)
            await socket.close()

            // A plain GET /ws (no upgrade) is an HTTP route miss, as in Starlette.
            let plain = try await client.send(sim, "/ws")
            #expect(plain.status == 404)
            #expect(plain.body == #"{"detail":"Not Found"}"#)
            #expect(sim.control.calls("GET /ws") == 2)
        }
    }

    @Test func deleteIsBroadcastAsEventDeleted() async throws {
        try await withEightAlls { sim, client in
            let first = try await TestSocket.connect(sim)
            let second = try await TestSocket.connect(sim)
            let id = try #require(try await Self.eventIDs(client, sim).first)
            let deleted = try await client.send(.DELETE, sim, "/api/events/\(id)")
            #expect(deleted.status == 204)

            for socket in [first, second] {
                let text = try #require(await socket.next())
                let prefix = #"{"type":"event_deleted","data":{"id":"\#(id)"},"timestamp":""#
                #expect(text.hasPrefix(prefix))
                #expect(text.hasSuffix(#""}"#))
                let message = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                #expect(message["type"] as? String == "event_deleted")
                #expect((message["data"] as? [String: Any])?.keys.sorted() == ["id"])
                let timestamp = try #require(message["timestamp"] as? String)
                #expect(Self.isNaiveTimestamp(timestamp), "timestamp \(timestamp)")
            }

            // A failed delete broadcasts nothing: the next message is the answer to a ping.
            #expect(try await client.send(.DELETE, sim, "/api/events/\(id)").status == 404)
            first.send("ping")
            #expect(await first.next() == "pong")
            await first.close()
            await second.close()
        }
    }

    @Test func createSilencesConnectedClientsButNotLaterOnes() async throws {
        try await withEightAlls { sim, client in
            let early = try await TestSocket.connect(sim)
            let created = try await client.send(.POST, sim, "/api/events", json: Self.newEvent)
            #expect(created.status == 201)
            let late = try await TestSocket.connect(sim)  // its ping/pong would come after any event_created

            let ids = try await Self.eventIDs(client, sim)
            #expect(try await client.send(.DELETE, sim, "/api/events/\(ids[0])").status == 204)
            let text = try #require(await late.next())
            #expect(text.hasPrefix(#"{"type":"event_deleted","data":{"id":"\#(ids[0])"}"#))

            // The early socket is still open (it answers pings) but got neither event_created
            // nor the delete: the broadcast finished before the DELETE answer, so a message would
            // come before this pong.
            early.send("ping")
            #expect(await early.next() == "pong")
            #expect(await early.next(timeout: .milliseconds(200)) == nil)

            // Still silenced after another delete; the late socket keeps receiving.
            #expect(try await client.send(.DELETE, sim, "/api/events/\(ids[1])").status == 204)
            #expect(await late.next()?.contains(ids[1]) == true)
            early.send("ping")
            #expect(await early.next() == "pong")
            await early.close()
            await late.close()
        }
    }

    @Test func updateSilencesConnectedClientsToo() async throws {
        try await withEightAlls { sim, client in
            let socket = try await TestSocket.connect(sim)
            let ids = try await Self.eventIDs(client, sim)
            // A failed update broadcasts nothing, so the socket stays listed.
            let bad = try await client.send(
                .PUT, sim, "/api/events/\(ids[0])", json: #"{"end_time":"2000-01-01T00:00:00Z"}"#)
            #expect(bad.status == 400)
            #expect(try await client.send(.DELETE, sim, "/api/events/\(ids[1])").status == 204)
            #expect(await socket.next()?.contains(ids[1]) == true)

            let updated = try await client.send(.PUT, sim, "/api/events/\(ids[0])", json: #"{"title":"Renamed"}"#)
            #expect(updated.status == 200)
            #expect(try await client.send(.DELETE, sim, "/api/events/\(ids[2])").status == 204)
            socket.send("ping")
            #expect(await socket.next() == "pong")
            await socket.close()
        }
    }

    @Test func faultsAndControlPaths() async throws {
        try await withEightAlls { sim, client in
            // down refuses the upgrade: no answer, the connection is reset (also for "refuse": a FIN
            // would leave the WebSocket client hanging), counted once.
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"down":"refuse"}"#)
            await #expect(throws: (any Error).self) { try await TestSocket.connect(sim) }
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"down":"reset"}"#)
            await #expect(throws: (any Error).self) { try await TestSocket.connect(sim) }
            #expect(sim.control.calls("GET /ws") == 2)
            let upgrade =
                "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            #expect(await rawExchange(port: sim.port, request: upgrade) == .reset)
            #expect(sim.control.calls("GET /ws") == 3)
            _ = try await client.send(.DELETE, sim, "/_sim/faults")
            let accepted = await rawExchange(port: sim.port, request: upgrade)
            #expect(
                accepted
                    == .answered(
                        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nConnection: upgrade\r\n\r\n"
                    ))
            #expect(sim.control.calls("GET /ws") == 4)

            // A firing error_status refuses the upgrade too.
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":503}"#)
            await #expect(throws: (any Error).self) { try await TestSocket.connect(sim) }

            // Latency delays the upgrade; garbage does not concern WebSockets.
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"latency_ms":200,"garbage":true}"#)
            let start = ContinuousClock.now
            let slow = try await TestSocket.connect(sim)
            #expect(ContinuousClock.now - start >= .milliseconds(200))
            await slow.close()

            // Cleared: works again. Other paths and /_sim are never upgraded.
            _ = try await client.send(.DELETE, sim, "/_sim/faults")
            let socket = try await TestSocket.connect(sim)
            await #expect(throws: (any Error).self) { try await TestSocket.connect(sim, path: "/api/events") }
            await #expect(throws: (any Error).self) { try await TestSocket.connect(sim, path: "/_sim/stats") }
            #expect(sim.control.calls("GET /ws") == 7)
            #expect(sim.control.calls("GET /api/events") == 1)
            #expect(sim.control.callCounts.keys.allSatisfy { !$0.contains("/_sim") })
            #expect(try await client.send(sim, "/health").status == 200)
            await socket.close()
        }
    }

    @Test func stopIsPromptWithClientsConnected() async throws {
        try await withEightAlls { sim, client in
            let a = try await TestSocket.connect(sim)
            let b = try await TestSocket.connect(sim)
            // One client silenced, one listed: both are open.
            _ = try await client.send(.POST, sim, "/api/events", json: Self.newEvent)
            let c = try await TestSocket.connect(sim)
            let start = ContinuousClock.now
            await sim.stop()
            #expect(ContinuousClock.now - start < .seconds(10), "prompt (wide margin: 2 busy cores)")
            // The server closed every connection.
            for socket in [a, b, c] {
                #expect(await socket.next() == nil)
                _ = try? await socket.task.value
            }
            #expect(ContinuousClock.now - start < .seconds(12))
        }
    }

    @Test func stopIsPromptDuringUpgradeLatency() async throws {
        try await withEightAlls { sim, _ in
            sim.control.setFaults(SimulatorFaults(latencyMs: 60_000))
            let pending = Task { try await TestSocket.connect(sim) }
            try await waitUntil { sim.control.calls("GET /ws") == 1 }
            let start = ContinuousClock.now
            await sim.stop()
            // Far less than the 60 s upgrade latency; wide margin for a loaded 2-core machine.
            #expect(ContinuousClock.now - start < .seconds(10))
            await #expect(throws: (any Error).self) { try await pending.value }
        }
    }
}
