import AsyncHTTPClient
import Foundation
import Model
import NIOCore
import NIOHTTP1
import Testing

@testable import Gateway

/// A connection stays open after an answer only as HTTP says (`ConnectionPersistence`): the
/// decisions without sockets, then a live gateway with the default 60 s idle limit, where only
/// a connection the gateway fails to close would outlast the 10 s each check waits.
@Suite struct ConnectionPersistenceTests {
    static func head(_ version: HTTPVersion, _ headers: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(version: version, method: .GET, uri: "/healthz", headers: HTTPHeaders(headers))
    }

    static func answer(length: Int? = 2) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        if let length { headers.add(name: "Content-Length", value: String(length)) }
        return HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
    }

    @Test func http11KeepsTheConnectionUnlessTheRequestSaysClose() {
        var persistence = ConnectionPersistence()
        let read = persistence.requestRead(Self.head(.http1_1))
        let kept = persistence.answerBegins(Self.answer())
        let closes = persistence.answerEnds()
        #expect(read && !closes)
        #expect(kept.headers["connection"].isEmpty && kept.version == .http1_1)

        for value in ["close", "Close", "keep-alive, close", "CLOSE"] {
            var closing = ConnectionPersistence()
            let first = closing.requestRead(Self.head(.http1_1, [("Connection", value)]))
            let second = closing.requestRead(Self.head(.http1_1))
            let head = closing.answerBegins(Self.answer())
            let ends = closing.answerEnds()
            #expect(first && !second, "a request after the closing one is not read")
            #expect(head.headers["connection"] == ["close"] && ends, "\(value)")
        }
    }

    @Test func http10ClosesUnlessItAsksToKeepAlive() {
        var plain = ConnectionPersistence()
        let read = plain.requestRead(Self.head(.http1_0))
        let head = plain.answerBegins(Self.answer())
        let closes = plain.answerEnds()
        #expect(read && closes)
        #expect(head.version == .http1_0 && head.headers["connection"] == ["close"])

        var keepAlive = ConnectionPersistence()
        _ = keepAlive.requestRead(Self.head(.http1_0, [("Connection", "Keep-Alive")]))
        let kept = keepAlive.answerBegins(Self.answer())
        let keptCloses = keepAlive.answerEnds()
        #expect(kept.headers["connection"] == ["keep-alive"] && !keptCloses)
        // An answer without a length cannot be framed for HTTP/1.0 but by the connection's end.
        let again = keepAlive.requestRead(Self.head(.http1_0, [("Connection", "keep-alive")]))
        let unframed = keepAlive.answerBegins(Self.answer(length: nil))
        let unframedCloses = keepAlive.answerEnds()
        #expect(again && unframed.headers["connection"] == ["close"] && unframedCloses)
    }

    @Test func pipelinedAnswersCloseAfterTheClosingRequestsOwn() {
        var persistence = ConnectionPersistence()
        let first = persistence.requestRead(Self.head(.http1_1))
        let second = persistence.requestRead(Self.head(.http1_1, [("Connection", "close")]))
        let third = persistence.requestRead(Self.head(.http1_1))
        let hotCloses = persistence.answeredElsewhere()
        let head = persistence.answerBegins(Self.answer())
        let closes = persistence.answerEnds()
        #expect(first && second && !third)
        #expect(!hotCloses, "the first (hot) answer keeps the connection")
        #expect(head.headers["connection"] == ["close"] && closes)
    }

    // MARK: - Live

    /// A gateway on a free port with the default limits (idle 60 s), for the length of `body`.
    func withGateway<Value: Sendable>(_ body: @Sendable (Int) async throws -> Value) async throws -> Value {
        try await withDemo { demo in
            try await withServedGateway(ReloadableGateway(runtime: demo.runtime)) { port in try await body(port) }
        }
    }

    /// Sends `request` on a new connection and reads until the gateway closes it (10 s at most).
    static func exchange(_ port: Int, _ request: String) async throws -> (closed: Bool, text: String) {
        let client = try RawClient(port: port)
        defer { client.close() }
        #expect(client.send(request))
        let (closed, _) = await client.waitForClose(timeout: .seconds(10))
        return (closed, client.text)
    }

    static func body(_ text: String) -> JSONValue? {
        guard let range = text.range(of: "\r\n\r\n") else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(text[range.upperBound...].utf8))
    }

    @Test func anHTTP10AnswerEndsItsConnectionOnTheRouterAndForAKeptAnswer() async throws {
        try await withGateway { port in
            // Kept from the second answer on (the hot path's).
            for _ in 0..<2 {
                _ = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/today"), timeout: .seconds(20))
            }
            for path in ["/healthz", "/v1/today", "/v1/sources"] {
                let (closed, text) = try await Self.exchange(port, "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(closed, "\(path): the connection stayed open")
                #expect(text.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(path): \(text.prefix(200))")
                #expect(text.lowercased().contains("\r\nconnection: close\r\n"), "\(path)")
                #expect(Self.body(text) != nil, "\(path): the whole body arrived")
            }
        }
    }

    @Test func connectionCloseOnHTTP11EndsTheConnectionAndNothingAfterIsAnswered() async throws {
        try await withGateway { port in
            for _ in 0..<2 {
                _ = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/today"), timeout: .seconds(20))
            }
            for path in ["/healthz", "/v1/today"] {
                let (closed, text) = try await Self.exchange(
                    port,
                    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Close\r\n\r\n"
                        + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(closed, "\(path): the connection stayed open")
                #expect(text.components(separatedBy: "HTTP/1.1 200").count == 2, "\(path): one answer only")
            }
        }
    }

    @Test func anHTTP10KeepAliveConnectionStaysOpen() async throws {
        try await withGateway { port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
            await client.wait(timeout: .seconds(10)) { Self.body($0.text) != nil || $0.closed }
            #expect(client.text.lowercased().contains("\r\nconnection: keep-alive\r\n"), "\(client.text)")
            #expect(!client.closed)
            let before = client.received.count
            client.send("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            let (closed, _) = await client.waitForClose(timeout: .seconds(10))
            #expect(closed)
            #expect(String(decoding: client.received[before...], as: UTF8.self).hasPrefix("HTTP/1.0 200 OK"))
        }
    }
}
