import AsyncHTTPClient
import Foundation
import Model
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

/// One request of `Tests/Fixtures/recordings/<backend>/exchanges/NNN-name.json` and the real
/// server's answer to it (`status` nil: the server closed the connection without answering).
struct RecordedExchange: Sendable {
    var number: Int
    var name: String
    var method: String
    var path: String
    var requestHeaders: [(String, String)]
    var requestBody: String?
    var status: Int?
    var responseHeaders: [String: String]
    var responseBody: String
    /// The whole file, for the parts only some exchanges have (WebSocket steps).
    var file: JSONValue

    /// Every exchange of `backend`, in the order they were sent.
    static func load(_ backend: String) throws -> [RecordedExchange] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/recordings/\(backend)/exchanges")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
        return try names.map { name in
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            return try RecordedExchange(file: JSONValue(parsing: Array(bytes)), fileName: name)
        }
    }

    init(file: JSONValue, fileName: String) throws {
        let request = try #require(file["request"])
        let response = file["response"]
        self.number = try #require(Int(fileName.prefix(3)))
        self.name = file["name"]?.stringValue ?? fileName
        self.method = try #require(request["method"]?.stringValue)
        self.path = try #require(request["path"]?.stringValue)
        self.requestHeaders = (request["headers"]?.objectValue?.fields ?? []).compactMap { name, value in
            value.stringValue.map { (name, $0) }
        }
        self.requestBody = request["body"]?.stringValue
        self.status = (response?["status"]?.numberValue).map { Int($0) }
        self.responseHeaders = Dictionary(
            (response?["headers"]?.objectValue?.fields ?? []).compactMap { name, value in
                value.stringValue.map { (name.lowercased(), $0) }
            }, uniquingKeysWith: { first, _ in first })
        self.responseBody = response?["body"]?.stringValue ?? ""
        self.file = file
    }

    var label: String { String(format: "%03d", number) + " " + name }
}

/// What the real server chose and the simulator chooses differently: placeholders of secrets
/// (`<session-1>`, `<link-1>`), new ids and the port, each recorded value with the simulator's
/// value for it, learned from the answers as they come.
struct ReplayMap {
    private(set) var pairs: [(recorded: String, simulated: String)] = []

    func simulated(for recorded: String) -> String? {
        pairs.first { $0.recorded == recorded }?.simulated
    }

    mutating func learn(_ recorded: String, _ simulated: String) {
        guard self.simulated(for: recorded) == nil else { return }
        pairs.append((recorded, simulated))
    }

    /// `text` with every known recorded value replaced by the simulator's (longest first).
    func apply(_ text: String) -> String {
        var out = text
        for pair in pairs.sorted(by: { $0.recorded.count > $1.recorded.count }) where out.contains(pair.recorded) {
            out = out.replacingOccurrences(of: pair.recorded, with: pair.simulated)
        }
        return out
    }
}

/// How one backend's recordings are compared.
struct ReplayRules: Sendable {
    /// Recorded strings the server chose itself (ids, tokens, placeholders): the first time one
    /// meets a different simulator value, that value is learned as its counterpart.
    var isChosenByServer: @Sendable (String) -> Bool
    /// Recorded strings that are the server's clock at the time: compared by their shape only.
    var isClockValue: @Sendable (String) -> Bool
    /// Response headers whose values must be equal (after mapping).
    var equalHeaders: [String]
    /// Response headers that must be present exactly when recorded.
    var presentHeaders: [String]

    /// ISO-8601 instants written from `since` until `until` (`2026-11-26T17:00`), with or without
    /// the `Z`.
    static func clock(since: String, until: String = "9999") -> @Sendable (String) -> Bool {
        { value in
            guard value.count >= 19, value.count <= 32, value >= since, value < until else { return false }
            let chars = Array(value)
            guard chars[4] == "-", chars[7] == "-", chars[10] == "T", chars[13] == ":", chars[16] == ":" else {
                return false
            }
            return value.allSatisfy { $0.isNumber || "-:T.Z+".contains($0) }
        }
    }

    /// An ISO instant of any time: what a clock value of the simulator must look like.
    static func isInstant(_ value: String) -> Bool {
        clock(since: "0000")(value)
    }
}

/// Replays recorded exchanges against a running simulator and lists where it answers otherwise.
struct RecordingReplayer {
    let sim: RunningSimulator
    let client: HTTPClient
    let rules: ReplayRules
    var map = ReplayMap()

    init(sim: RunningSimulator, client: HTTPClient, rules: ReplayRules) {
        self.sim = sim
        self.client = client
        self.rules = rules
    }

    /// Sends the exchange's request (mapped) and compares the answer; returns the differences.
    mutating func replay(_ exchange: RecordedExchange) async throws -> [String] {
        let path = map.apply(exchange.path)
        let headers = exchange.requestHeaders.map { ($0.0, map.apply($0.1)) }
        let body = exchange.requestBody.map { map.apply($0) }
        guard let status = exchange.status else {
            let outcome = await rawExchange(
                port: sim.port, request: Self.rawRequest(exchange.method, path, headers, body, port: sim.port))
            switch outcome {
            case .closed, .reset: return []
            default: return ["the real server closed the connection without answering; the simulator: \(outcome)"]
            }
        }
        let answer = try await send(exchange.method, path, headers: headers, body: body)
        return compare(exchange, status: status, answer)
    }

    /// Sends exactly these headers and this body (no content type is added).
    func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil)
        async throws -> SimResponse
    {
        var request = HTTPClientRequest(url: sim.baseURL + path)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 4 * 1024 * 1024)
        return SimResponse(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    static func rawRequest(_ method: String, _ path: String, _ headers: [(String, String)], _ body: String?, port: Int)
        -> String
    {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }

    mutating func compare(_ exchange: RecordedExchange, status: Int, _ answer: SimResponse) -> [String] {
        var differences: [String] = []
        if answer.status != status { differences.append("status \(answer.status), recorded \(status)") }
        differences += compareHeaders(exchange, answer)
        let recordedJSON = try? JSONValue(parsing: Array(exchange.responseBody.utf8))
        if let recordedJSON, !exchange.responseBody.isEmpty {
            guard let actual = try? JSONValue(parsing: Array(answer.body.utf8)) else {
                return differences + ["body is not JSON: \(answer.body.prefix(200))"]
            }
            differences += compareJSON(recordedJSON, actual, at: "body")
        } else if map.apply(exchange.responseBody) != answer.body {
            differences.append(
                "body \(answer.body.prefix(200).debugDescription), recorded \(exchange.responseBody.debugDescription)")
        }
        return differences
    }

    mutating func compareHeaders(_ exchange: RecordedExchange, _ answer: SimResponse) -> [String] {
        var differences: [String] = []
        for name in rules.equalHeaders {
            let recorded = exchange.responseHeaders[name].map { map.apply($0) }
            let actual = answer.headers.first(name: name)
            if recorded != actual {
                differences.append("header \(name): \(actual ?? "absent"), recorded \(recorded ?? "absent")")
            }
        }
        for name in rules.presentHeaders
        where (exchange.responseHeaders[name] != nil) != answer.headers.contains(name: name) {
            differences.append("header \(name) \(exchange.responseHeaders[name] == nil ? "sent" : "missing")")
        }
        if let recorded = exchange.responseHeaders["set-cookie"], let actual = answer.headers.first(name: "set-cookie")
        {
            differences += compareCookie(recorded, actual)
        }
        // No length on a 204 (uvicorn), and an empty answer says 0.
        switch exchange.responseHeaders["content-length"] {
        case nil where answer.headers.contains(name: "content-length"):
            differences.append("header content-length sent, recorded absent")
        case "0"? where answer.headers.first(name: "content-length") != "0":
            differences.append(
                "header content-length \(answer.headers.first(name: "content-length") ?? "absent"), recorded 0")
        default: break
        }
        return differences
    }

    /// `name=value; Attr; Expires=…`: the value is learned or mapped, `Expires` is the clock.
    mutating func compareCookie(_ recorded: String, _ actual: String) -> [String] {
        let want = recorded.components(separatedBy: "; ")
        let have = actual.components(separatedBy: "; ")
        func name(_ part: String) -> String { String(part.prefix { $0 != "=" }) }
        guard want.map(name) == have.map(name) else { return ["set-cookie \(actual), recorded \(recorded)"] }
        var differences: [String] = []
        for (w, h) in zip(want, have) where name(w) != "Expires" {
            let value = String(w.drop { $0 != "=" }.dropFirst())
            let got = String(h.drop { $0 != "=" }.dropFirst())
            differences += compareString(value, got, at: "set-cookie \(name(w))")
        }
        return differences
    }

    /// Differences between a recorded JSON value and the simulator's, learning new ids as it goes.
    mutating func compareJSON(_ recorded: JSONValue, _ actual: JSONValue, at path: String) -> [String] {
        switch (recorded, actual) {
        case (.object(let want), .object(let have)):
            guard want.keys == have.keys else {
                return ["\(path): keys \(have.keys), recorded \(want.keys)"]
            }
            return want.fields.flatMap { key, value in compareJSON(value, have[key] ?? .null, at: "\(path).\(key)") }
        case (.array(let want), .array(let have)):
            guard want.count == have.count else {
                return ["\(path): \(have.count) items, recorded \(want.count): \(actual.serialized.prefix(300))"]
            }
            return zip(want, have).enumerated().flatMap { index, pair in
                compareJSON(pair.0, pair.1, at: "\(path)[\(index)]")
            }
        case (.string(let want), .string(let have)):
            return compareString(want, have, at: path)
        case (.int, _), (.double, _):
            return recorded.numberValue == actual.numberValue && actual.numberValue != nil
                ? [] : ["\(path): \(actual.serialized), recorded \(recorded.serialized)"]
        default:
            return recorded == actual
                ? [] : ["\(path): \(actual.serialized.prefix(200)), recorded \(recorded.serialized)"]
        }
    }

    mutating func compareString(_ recorded: String, _ actual: String, at path: String) -> [String] {
        let expected = map.apply(recorded)
        if expected == actual { return [] }
        if rules.isClockValue(recorded), ReplayRules.isInstant(actual) { return [] }
        if rules.isChosenByServer(recorded), map.simulated(for: recorded) == nil,
            !map.pairs.contains(where: { $0.simulated == actual })
        {
            map.learn(recorded, actual)
            return []
        }
        return ["\(path): \(actual.debugDescription), recorded \(expected.debugDescription)"]
    }
}

/// Why an exchange is not replayed: it needs state changed outside the API that the simulator
/// does not model.
struct SkippedExchange: Sendable {
    var number: Int
    var reason: String
}
