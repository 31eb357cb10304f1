import Foundation
import Model
import Testing

@testable import Simulators

/// Replays one recorded `/ws` exchange of 8alls (072-076 with `websocket.steps`, 081 the
/// handshake on `/ws/`): sockets connect when they first appear in a step (a ping and its pong
/// first, so the server has listed them), HTTP calls are compared as the other exchanges, the
/// frames each socket received are compared in order, an empty list means no frame came, and
/// the close the client saw is compared by its code.
struct EightAllsSocketScenario {
    /// Events the recording made through plain HTTP before the scenario, without recording the
    /// call (072: "created before B connected"; 074's target); made here the same way.
    static let unrecordedCreates: [String: String] = [
        "a7aaedad-4e84-4bec-a2db-978dd9e157d0":
            #"{"end_time":"2026-11-29T10:00:00Z","start_time":"2026-11-29T09:00:00Z","title":"WS delete target"}"#,
        "e706268a-3695-4355-8797-eb71ef2d0fb0":
            #"{"end_time":"2026-11-29T14:00:00Z","start_time":"2026-11-29T13:00:00Z","title":"WS update target"}"#,
    ]

    /// How long a socket must stay quiet to count as "received nothing".
    static let quiet: Duration = .milliseconds(300)

    var sockets: [String: TestSocket] = [:]

    mutating func run(_ exchange: RecordedExchange, _ replayer: inout RecordingReplayer) async throws -> [String] {
        if exchange.status != 101 { return await handshake(exchange, replayer) }
        var differences: [String] = []
        for (recorded, body) in Self.unrecordedCreates.sorted(by: { $0.key < $1.key })
        where replayer.map.simulated(for: recorded) == nil && exchange.file.serialized.contains(recorded) {
            let created = try await replayer.send(
                "POST", "/api/events", headers: [("Content-Type", "application/json")], body: body)
            let id = try #require(try JSONValue(parsing: Array(created.body.utf8))["id"]?.stringValue)
            replayer.map.learn(recorded, id)
        }
        for step in exchange.file["websocket"]?["steps"]?.arrayValue ?? [] {
            let label = step["step"]?.stringValue ?? "?"
            for name in Self.socketNames(step) where sockets[name] == nil {
                sockets[name] = try await TestSocket.connect(replayer.sim)
            }
            for (name, sent) in step["ws_sent"]?.objectValue?.fields ?? [] {
                if let text = sent.stringValue {
                    sockets[name]?.send(text)
                } else {
                    sockets[name]?.sendBinary([0x01])
                }
            }
            if let status = step["status"]?.numberValue.map({ Int($0) }) {
                differences += try await http(step, status: status, &replayer).map { "\(label): \($0)" }
            }
            for (name, frames) in step["frames_received"]?.objectValue?.fields ?? [] {
                differences += await received(name, frames.arrayValue ?? [], &replayer).map { "\(label): \($0)" }
            }
            if step["socket_state"]?.stringValue == "OPEN" {
                // 076: still open after the binary frame and the unanswered ping.
                differences += sockets.filter { $0.value.isEnded }.map {
                    "\(label): socket \($0.key) ended, recorded OPEN"
                }
            }
            if let close = step["close_seen_by_client"] {
                differences += await closeAll(close).map { "\(label): \($0)" }
            }
        }
        for socket in sockets.values { await socket.close() }
        return differences
    }

    /// The sockets a step names, in a stable order.
    static func socketNames(_ step: JSONValue) -> [String] {
        let sent = step["ws_sent"]?.objectValue?.keys ?? []
        let heard = step["frames_received"]?.objectValue?.keys ?? []
        return Array(Set(sent + heard)).sorted()
    }

    /// The step's HTTP call (075's bare "POST an event" has no recorded request: any new event).
    func http(_ step: JSONValue, status: Int, _ replayer: inout RecordingReplayer) async throws -> [String] {
        let call = step["http"]?.stringValue ?? "POST /api/events"
        let parts = call.split(separator: " ", maxSplits: 1).map(String.init)
        let body =
            step["request_body"]?.stringValue
            ?? (step["http"] == nil
                ? #"{"end_time":"2026-11-29T16:00:00Z","start_time":"2026-11-29T15:00:00Z","title":"WS later"}"# : nil)
        let answer = try await replayer.send(
            parts[0], replayer.map.apply(parts[1]),
            headers: body == nil ? [] : [("Content-Type", "application/json")],
            body: body.map { replayer.map.apply($0) })
        var differences = answer.status == status ? [] : ["status \(answer.status), recorded \(status)"]
        if let recorded = step["response_body"]?.stringValue, !recorded.isEmpty,
            let want = try? JSONValue(parsing: Array(recorded.utf8))
        {
            guard let have = try? JSONValue(parsing: Array(answer.body.utf8)) else {
                return differences + ["body \(answer.body)"]
            }
            differences += replayer.compareJSON(want, have, at: "body")
        }
        return differences
    }

    /// The frames socket `name` received, in order; none: it stays quiet.
    func received(_ name: String, _ frames: [JSONValue], _ replayer: inout RecordingReplayer) async -> [String] {
        guard let socket = sockets[name] else { return ["no socket \(name)"] }
        guard !frames.isEmpty else {
            if let text = await socket.next(timeout: Self.quiet) {
                return ["\(name) received \(text), recorded nothing"]
            }
            return []
        }
        var differences: [String] = []
        for frame in frames {
            let want = frame["data"]?.stringValue ?? ""
            guard let text = await socket.next() else {
                differences.append("\(name) received nothing, recorded \(want)")
                continue
            }
            if let wantJSON = try? JSONValue(parsing: Array(want.utf8)), want.hasPrefix("{") {
                guard let have = try? JSONValue(parsing: Array(text.utf8)) else {
                    differences.append("\(name) received \(text), recorded \(want)")
                    continue
                }
                differences += replayer.compareJSON(wantJSON, have, at: "\(name) frame")
            } else if text != want {
                differences.append("\(name) received \(text), recorded \(want)")
            }
        }
        return differences
    }

    /// The client closes; the server answers with the recorded close code (1000 each time here).
    mutating func closeAll(_ close: JSONValue) async -> [String] {
        let perSocket: [(String, JSONValue)] =
            close["code"] != nil ? sockets.keys.sorted().map { ($0, close) } : close.objectValue?.fields ?? []
        var differences: [String] = []
        for (name, recorded) in perSocket {
            guard let socket = sockets.removeValue(forKey: name) else { continue }
            let frame = await socket.closeFrame()
            let code = frame.map { frame in
                frame.closeCode == .normalClosure ? 1000 : frame.closeCode == .unexpectedServerError ? 1011 : -1
            }
            let want = recorded["code"]?.numberValue.map { Int($0) }
            // HummingbirdWSClient reports no close frame when the client itself closed, so only a
            // code it does report is compared (see EightAllsConformanceTests.notYetCompared).
            if let code, code != want {
                differences.append(
                    "\(name) closed with \(code), recorded \(want ?? 0)")
            }
        }
        return differences
    }

    /// 081: a handshake the server refuses (`/ws/`), as raw bytes.
    func handshake(_ exchange: RecordedExchange, _ replayer: RecordingReplayer) async -> [String] {
        let headers = exchange.requestHeaders.filter { $0.0.lowercased() != "host" }
        let outcome = await rawExchange(
            port: replayer.sim.port,
            request: RecordingReplayer.rawRequest("GET", exchange.path, headers, nil, port: replayer.sim.port))
        guard case .answered(let text) = outcome else { return ["no answer: \(outcome)"] }
        let head = text.components(separatedBy: "\r\n\r\n")[0].lowercased()
        let status = exchange.status.map(String.init) ?? "?"
        var differences: [String] = []
        if !head.hasPrefix("http/1.1 \(status)") {
            differences.append("answered \(head.prefix(40)), recorded \(status)")
        }
        for (name, value) in exchange.responseHeaders where ["content-length", "content-type"].contains(name) {
            if !head.contains("\(name): \(value.lowercased())") {
                differences.append("header \(name) not \(value): \(head)")
            }
        }
        return differences
    }
}
