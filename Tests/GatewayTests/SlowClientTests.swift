import AsyncHTTPClient
import Foundation
import Gateway
import Model
import NIOCore
import Testing

/// Slow and hostile clients against a live gateway with short configured limits
/// (`ConnectionGuardHandler`, `ConnectionBudget`, `StreamQuota`): heads that never finish,
/// bodies that trickle, idle keep-alives, too many streams, a full connection budget, an
/// HTTP/1.1 request without `Host`, and one that cannot be parsed.
@Suite(.serialized) struct SlowClientTests {
    static let quick = LimitsSettings(
        headerTimeout: .milliseconds(600), bodyTimeout: .milliseconds(600), idleTimeout: .milliseconds(800),
        streamsPerClient: 2
    )

    /// A gateway on a free port with `limits`, for the length of `body`.
    func withGateway<Value: Sendable>(
        limits: LimitsSettings = quick, heartbeat: Duration = .seconds(15),
        _ body: @Sendable (DemoHarness, Int) async throws -> Value
    ) async throws -> Value {
        try await withDemo(limits: limits) { demo in
            try await withServedGateway(ReloadableGateway(runtime: demo.runtime, heartbeat: heartbeat)) { port in
                try await body(demo, port)
            }
        }
    }

    static func get(_ port: Int, _ path: String, headers: [(String, String)] = []) async throws -> (
        status: Int, body: String
    ) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        return (Int(response.status.code), String(buffer: body))
    }

    /// The value of the Prometheus series `series` (name and labels as printed), 0 when absent.
    static func metric(_ port: Int, _ series: String) async throws -> Int {
        let metrics = try await get(port, "/metrics").body
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Int($0.dropFirst(series.count + 1)) } ?? 0
    }

    static func closedCount(_ port: Int, reason: String) async throws -> Int {
        try await metric(port, "daygate_http_connections_closed_total{reason=\"\(reason)\"}")
    }

    @Test func aHeadThatNeverEndsIsAnsweredWith408AndClosed() async throws {
        try await withGateway { _, port in
            let client = try RawClient(port: port)
            client.send("GET /v1/today HTTP/1.1\r\nHost: localhost\r\n")
            let (closed, after) = await client.waitForClose(timeout: .seconds(5))
            #expect(closed, "the half-sent request was not closed within 5 s")
            #expect(after >= .milliseconds(450) && after < .seconds(3), "closed after \(after), limit 600 ms")
            #expect(client.status == 408)
            #expect(client.body.contains(#""code":"request_timeout""#), "\(client.text)")
            #expect(try await Self.closedCount(port, reason: "header_timeout") == 1)
        }
    }

    @Test func aConnectionThatSendsNothingIsClosedAtTheHeadLimit() async throws {
        try await withGateway { _, port in
            let client = try RawClient(port: port)
            let (closed, after) = await client.waitForClose(timeout: .seconds(5))
            #expect(closed && after < .seconds(3), "closed \(closed) after \(after)")
        }
    }

    @Test func aHeadTrickledByteByByteIsClosedAtTheHeadLimit() async throws {
        try await withGateway { _, port in
            let client = try RawClient(port: port)
            let started = ContinuousClock.now
            for byte in "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n" {
                guard client.send(String(byte)) else { break }
                try await Task.sleep(for: .milliseconds(100))
                client.drain()
                if client.closed { break }
            }
            await client.waitForClose(timeout: .seconds(3))
            let after = ContinuousClock.now - started
            #expect(client.closed && after < .seconds(3), "a trickled head held the connection for \(after)")
        }
    }

    @Test func aTricklingBodyIsClosedAtTheBodyLimit() async throws {
        try await withGateway { _, port in
            let client = try RawClient(port: port)
            client.send(
                "POST /v1/tasks HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"title\":"
            )
            let (closed, after) = await client.waitForClose(timeout: .seconds(5))
            #expect(closed && after < .seconds(3), "closed \(closed) after \(after)")
            #expect(try await Self.closedCount(port, reason: "body_timeout") == 1)
        }
    }

    @Test func anIdleKeepAliveIsClosedAfterTheIdleLimitButNotWhileItIsUsed() async throws {
        try await withGateway { _, port in
            // Kept busy: a request every 300 ms for 2 s on one connection (idle limit 800 ms).
            let busy = try RawClient(port: port)
            for number in 1...7 {
                busy.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                await busy.wait(timeout: .seconds(3)) { $0.answers >= number }
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(busy.answers == 7 && !busy.closed, "\(busy.answers) answers, closed: \(busy.closed)")

            // Then left alone: closed, without a 408 (nothing was asked).
            let before = busy.received.count
            let (closed, after) = await busy.waitForClose(timeout: .seconds(5))
            #expect(closed && after < .seconds(3), "closed \(closed) after \(after)")
            #expect(busy.received.count == before, "an idle connection got bytes: \(busy.text.suffix(200))")
            #expect(try await Self.closedCount(port, reason: "idle_timeout") >= 1)
        }
    }

    /// A kept answer is written by the hot path, past the handler that keeps the time: it must
    /// still count as answered, or the connection would never idle out.
    @Test func anIdleKeepAliveAfterAHotAnswerIsClosedToo() async throws {
        try await withGateway { _, port in
            _ = try await Self.get(port, "/v1/today")
            _ = try await Self.get(port, "/v1/today")
            let hotBefore = try await Self.metric(port, "daygate_http_hot_answers_total")
            let client = try RawClient(port: port)
            client.send("GET /v1/today HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await client.wait(timeout: .seconds(5)) { $0.answers >= 1 && $0.body.hasSuffix("}") }
            #expect(client.status == 200)
            #expect(
                try await Self.metric(port, "daygate_http_hot_answers_total") > hotBefore,
                "the answer did not come from the hot path")
            let (closed, after) = await client.waitForClose(timeout: .seconds(5))
            #expect(closed && after < .seconds(3), "closed \(closed) after \(after)")
        }
    }

    /// A raw client that sent `request` and waited (3 s at most) for the gateway to close.
    static func sentUntilClosed(_ port: Int, _ request: String) async throws -> RawClient {
        let client = try RawClient(port: port)
        client.send(request)
        await client.waitForClose(timeout: .seconds(3))
        return client
    }

    @Test func anHTTP11RequestWithoutHostIsRefused() async throws {
        try await withGateway { _, port in
            let missing = try await Self.sentUntilClosed(port, "GET /healthz HTTP/1.1\r\n\r\n")
            #expect(missing.status == 400)
            #expect(missing.body.contains(#""code":"missing_host""#), "\(missing.text)")

            let twice = try await Self.sentUntilClosed(
                port, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: example.org\r\n\r\n")
            #expect(twice.status == 400)

            // HTTP/1.0 predates Host, but a request without one cannot be checked against DNS
            // rebinding: refused too (the 2026-11 security review).
            let old = try await Self.sentUntilClosed(port, "GET /healthz HTTP/1.0\r\n\r\n")
            #expect(old.text.hasPrefix("HTTP/1.0 400") || old.text.hasPrefix("HTTP/1.1 400"), "\(old.text)")
        }
    }

    @Test func aMalformedRequestIsAnsweredWithAJSONErrorAndClosed() async throws {
        try await withGateway { _, port in
            let bad = try await Self.sentUntilClosed(
                port, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n")
            #expect(bad.status == 400)
            #expect(bad.text.contains("Content-Type: application/json"), "\(bad.text)")
            #expect(bad.body.contains(#""code":"malformed_request""#), "\(bad.text)")

            // Pipelined after a good request: the good one is answered first, then the 400.
            let after = try await Self.sentUntilClosed(
                port,
                "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n")
            #expect(after.status == 200, "\(after.text)")
            #expect(after.text.contains("HTTP/1.1 400 Bad Request"), "\(after.text)")
            #expect(after.text.contains(#""code":"malformed_request""#), "\(after.text)")

            // A head larger than the decoder reads (80 KB): 431.
            let large = try await Self.sentUntilClosed(
                port,
                "GET /healthz HTTP/1.1\r\nHost: localhost\r\nCookie: " + String(repeating: "a", count: 100_000)
                    + "\r\n\r\n")
            #expect(large.status == 431, "\(large.text.prefix(300))")
            #expect(large.body.contains(#""code":"headers_too_large""#), "\(large.text.prefix(300))")
        }
    }

    /// The server's task group cancelled (how a test's gateway ends, and a service group that
    /// cannot shut down gracefully): a keep-alive connection its client holds open is closed,
    /// not waited for until its idle limit.
    @Test func aCancelledServerClosesTheKeepAliveConnectionsItsClientsHold() async throws {
        let patient = LimitsSettings(
            headerTimeout: .seconds(60), bodyTimeout: .seconds(60), idleTimeout: .seconds(60), streamsPerClient: 2)
        let started = ContinuousClock.now
        let client = try await withDemo(limits: patient) { demo in
            try await withServedGateway(ReloadableGateway(runtime: demo.runtime)) { port in
                let client = try RawClient(port: port)
                client.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                await client.wait(timeout: .seconds(5)) { $0.body.hasSuffix("}") }
                #expect(client.status == 200)
                return client
            }
        }
        #expect(ContinuousClock.now - started < .seconds(20), "the gateway waited for the idle client")
        await client.waitForClose(timeout: .seconds(5))
        #expect(client.closed)
    }

    /// A client that sends its requests and half-closes (`printf … | nc -N`): every request it
    /// sent is answered, then the gateway closes the connection instead of keeping it to the
    /// idle limit.
    @Test func aClientThatFinishesSendingIsAnsweredThenClosed() async throws {
        let patient = LimitsSettings(
            headerTimeout: .seconds(60), bodyTimeout: .seconds(60), idleTimeout: .seconds(60), streamsPerClient: 2)
        try await withDemo(limits: patient) { demo in
            try await withServedGateway(ReloadableGateway(runtime: demo.runtime)) { port in
                let client = try RawClient(port: port)
                client.send(String(repeating: "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n", count: 2))
                client.finishSending()
                let (closed, _) = await client.waitForClose(timeout: .seconds(5))
                #expect(client.answers == 2, "\(client.text.prefix(400))")
                #expect(closed, "the half-closed connection was kept open (to the 60 s idle limit)")
            }
        }
    }

    static let streamRequest = "GET /v1/stream HTTP/1.1\r\nHost: localhost\r\n\r\n"

    static func openStream(_ port: Int) async throws -> RawClient {
        let stream = try RawClient(port: port)
        stream.send(streamRequest)
        await stream.wait(timeout: .seconds(5)) {
            $0.text.contains("event: hello") || $0.body.hasSuffix("}") || $0.closed
        }
        return stream
    }

    @Test func streamsOutliveTheIdleLimit() async throws {
        try await withGateway { _, port in
            let stream = try await Self.openStream(port)
            #expect(stream.status == 200)
            // Twice the idle limit without a byte (the heartbeat is 15 s): the stream stays.
            try await Task.sleep(for: .milliseconds(1600))
            stream.drain()
            #expect(!stream.closed, "the idle limit ended a stream")
        }
    }

    @Test func eachClientMayHoldOnlyItsShareOfStreams() async throws {
        try await withGateway(heartbeat: .milliseconds(200)) { _, port in
            let first = try await Self.openStream(port)
            let second = try await Self.openStream(port)
            #expect(first.status == 200 && second.status == 200)
            let third = try await Self.openStream(port)
            #expect(third.status == 429, "\(third.text)")
            #expect(third.body.contains(#""code":"too_many_streams""#))

            // A stream whose client left gives its slot back (noticed at the next heartbeat).
            first.close()
            var again = try await Self.openStream(port)
            let started = ContinuousClock.now
            while again.status == 429, ContinuousClock.now - started < .seconds(5) {
                try await Task.sleep(for: .milliseconds(100))
                again = try await Self.openStream(port)
            }
            #expect(again.status == 200, "after one stream closed a new one was refused: \(again.text)")
        }
    }

    @Test func aFullBudgetShedsConnectionsThatHoldASlotWithoutUsingIt() async throws {
        var limits = Self.quick
        limits.maxConnections = 16
        limits.headerTimeout = .seconds(30)
        limits.idleTimeout = .seconds(30)
        try await withGateway(limits: limits) { demo, port in
            #expect(demo.runtime.connections.limit == 16)
            let holders = try (0..<16).map { _ in try RawClient(port: port) }
            for holder in holders { holder.send("GET /v1/today HTTP/1.1\r\nHost: localhost\r\n") }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            let asking = try RawClient(port: port)  // waits in the accept queue
            asking.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await asking.wait(timeout: .seconds(10)) { $0.body.hasSuffix("}") }
            let waited = ContinuousClock.now - started
            #expect(asking.status == 200)
            // The slow heads (limit 30 s) were shed after 1 s of pressure.
            #expect(waited < .seconds(5), "a request behind a full budget waited \(waited)")
            #expect(try await Self.closedCount(port, reason: "shed") >= 1)
            for holder in holders { holder.drain() }
            #expect(holders.filter { $0.closed && $0.status == 408 }.count >= 1)
        }
    }
}
