import AsyncHTTPClient
import Foundation
import Model
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Simulator faults and stats")
struct SimulatorControlTests {
    @Test func errorStatusFault() async throws {
        try await withEightAlls { sim, client in
            let set = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":503}"#)
            #expect(set.status == 200)
            #expect(set.object["error_status"] as? Int == 503)
            #expect(set.object["error_rate"] as? Double == 1.0)
            let r = try await client.send(sim, "/api/events")
            #expect(r.status == 503)
            #expect(r.body == #"{"detail":"simulated failure"}"#)
            #expect(r.headers["content-type"].first == "application/json")
            // /_sim is never faulted; {} clears everything.
            let cleared = try await client.send(.POST, sim, "/_sim/faults", json: "{}")
            #expect(cleared.object["error_status"] is NSNull)
            #expect(try await client.send(sim, "/api/events").status == 200)
            // error_after: the write is done, its answer replaced by the error.
            let window = "/api/events?start_date=2026-11-23T00:00:00Z&end_date=2026-11-24T00:00:00Z"
            let before = try await client.send(sim, window)
            _ = try await client.send(
                .POST, sim, "/_sim/faults", json: #"{"error_status":502,"error_after":true,"method":"POST"}"#)
            let lost = try await client.send(
                .POST, sim, "/api/events",
                json: #"{"title":"Na de proxy","start_time":"2026-11-23T10:00:00Z","end_time":"2026-11-23T11:00:00Z"}"#)
            #expect(lost.status == 502)
            _ = try await client.send(.POST, sim, "/_sim/faults", json: "{}")
            let after = try await client.send(sim, window)
            #expect(after.body.contains("Na de proxy") && !before.body.contains("Na de proxy"))

            // error_rate 0 never fires.
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":500,"error_rate":0}"#)
            #expect(try await client.send(sim, "/health").status == 200)

            let invalid = try await client.send(.POST, sim, "/_sim/faults", json: #"{"down":"sometimes"}"#)
            #expect(invalid.status == 400)
        }
    }

    @Test func latencyFault() async throws {
        try await withEightAlls { sim, client in
            sim.control.setFaults(SimulatorFaults(latencyMs: 2000))
            let start = ContinuousClock.now
            let r = try await client.send(sim, "/health")
            let elapsed = ContinuousClock.now - start
            #expect(r.status == 200)
            #expect(elapsed >= .milliseconds(2000))
            // The simulator's own service time (what `make bench` compares the gateway with)
            // includes the latency it was told to add.
            let median = try #require(sim.control.medianDurations["GET /health"])
            #expect(median >= 2000 && median <= elapsed.milliseconds)
            // Control paths are not delayed (generous bound: the machine may be busy).
            let controlStart = ContinuousClock.now
            _ = try await client.send(sim, "/_sim/faults")
            #expect(ContinuousClock.now - controlStart < .milliseconds(1500))
        }
    }

    @Test func garbageFault() async throws {
        try await withEightAlls { sim, client in
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"garbage":true}"#)
            let r = try await client.send(sim, "/api/events")
            #expect(r.status == 200)
            #expect(r.headers["content-type"].first == "application/json")
            #expect(r.body == "<html>oops{")
            #expect(r.json == nil)
        }
    }

    @Test func resetFaultSendsRST() async throws {
        try await withEightAlls { sim, client in
            let set = try await client.send(.POST, sim, "/_sim/faults", json: #"{"down":"reset"}"#)
            #expect(set.object["down"] as? String == "reset")
            await #expect(throws: (any Error).self) { _ = try await client.send(sim, "/api/events") }
            let raw = await rawExchange(port: sim.port, request: "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(raw == .reset)
            // The control surface still answers on the same port.
            let faults = try await client.send(sim, "/_sim/faults")
            #expect(faults.status == 200)
            #expect(faults.object["down"] as? String == "reset")
            _ = try await client.send(.POST, sim, "/_sim/faults", json: "{}")
            #expect(try await client.send(sim, "/api/events").status == 200)
        }
    }

    @Test func refuseFaultClosesWithoutAnswer() async throws {
        try await withEightAlls { sim, client in
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"down":"refuse","latency_ms":50}"#)
            await #expect(throws: (any Error).self) { _ = try await client.send(sim, "/health") }
            let raw = await rawExchange(port: sim.port, request: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(raw == .closed)
            #expect(try await client.send(sim, "/_sim/faults").status == 200)
            sim.control.setFaults(SimulatorFaults())
            #expect(try await client.send(sim, "/health").status == 200)
        }
    }

    @Test func statsCountPerPathAndIgnoreControlRoutes() async throws {
        try await withEightAlls { sim, client in
            _ = try await client.send(sim, "/api/events?status=tentative")
            _ = try await client.send(sim, "/api/events")
            _ = try await client.send(sim, "/health")
            _ = try await client.send(sim, "/_sim/faults")
            let stats = try await client.send(sim, "/_sim/stats")
            let statsJSON = try #require(
                try JSONSerialization.jsonObject(with: Data(stats.body.utf8)) as? [String: Any])
            #expect(statsJSON["calls"] as? [String: Int] == ["GET /api/events": 2, "GET /health": 1])
            #expect(statsJSON["total"] as? Int == 3)
            #expect((statsJSON["median_ms"] as? [String: Double])?.keys.sorted() == ["GET /api/events", "GET /health"])
            #expect(sim.control.calls("GET /api/events") == 2)
            #expect(sim.control.totalCalls == 3)

            // A faulted call still counts, including one whose connection is killed.
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":500}"#)
            _ = try await client.send(sim, "/api/events")
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"down":"reset"}"#)
            _ = await rawExchange(port: sim.port, request: "DELETE /api/events/x HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(sim.control.calls("GET /api/events") == 3)
            #expect(sim.control.calls("DELETE /api/events/x") == 1)
            #expect(sim.control.totalCalls == 5)

            let reset = try await client.send(.POST, sim, "/_sim/stats/reset")
            #expect(reset.body == #"{"calls":{},"total":0,"median_ms":{}}"#)
            #expect(sim.control.totalCalls == 0)
        }
    }

    @Test func faultsDecodeAndEncode() throws {
        let empty = try JSONDecoder().decode(SimulatorFaults.self, from: Data("{}".utf8))
        #expect(empty == SimulatorFaults())
        #expect(empty.errorRate == 1.0)
        let full = try JSONDecoder().decode(
            SimulatorFaults.self,
            from: Data(#"{"latency_ms":20,"error_status":502,"error_rate":0.5,"down":"refuse","garbage":true}"#.utf8)
        )
        #expect(full == SimulatorFaults(latencyMs: 20, errorStatus: 502, errorRate: 0.5, down: "refuse", garbage: true))
        let roundTrip = try JSONDecoder().decode(SimulatorFaults.self, from: JSONEncoder().encode(full))
        #expect(roundTrip == full)
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(SimulatorFaults.self, from: Data(#"{"error_rate":2}"#.utf8))
        }
    }

    @Test func loopbackOnlyAndIdempotentStop() async throws {
        await #expect(throws: SimulatorError.self) { _ = try await EightAllsSimulator().start(host: "0.0.0.0") }
        await #expect(throws: SimulatorError.self) { _ = try await EightAllsSimulator().start(host: "192.168.1.2") }
        let sim = try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start(
            host: "localhost")
        #expect(sim.port > 0)
        #expect(sim.host == "127.0.0.1")
        await sim.stop()
        await sim.stop()
        // The port is free again: a new simulator binds it at once. (Probing it with a connect
        // instead races with parallel tests that may be handed the same ephemeral port.)
        let again = try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start(
            port: sim.port)
        #expect(again.port == sim.port)
        await again.stop()
    }

    /// A stop asked from a cancelled task (a demo's service group ending because its gateway
    /// could not listen) still waits until the server is gone: its port is free once it returns.
    @Test func aStopAskedByACancelledTaskStillEndsTheServer() async throws {
        let sim = try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start()
        let stopping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await sim.stop()
        }
        await stopping.value
        let ended = sim.ended.load(ordering: .relaxed)
        #expect(ended, "the stop returned with the server left behind")
        let again = try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start(
            port: sim.port)
        #expect(again.port == sim.port)
        await again.stop()
    }

    @Test func stopDoesNotWaitForeverOnSlowRequests() async throws {
        let sim = try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start()
        sim.control.setFaults(SimulatorFaults(latencyMs: 60_000))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let slow = Task { try await client.send(sim, "/health") }
        try await waitUntil { sim.control.calls("GET /health") == 1 }
        let start = ContinuousClock.now
        await sim.stop(gracePeriod: .milliseconds(200))
        // Far less than the 60 s latency. Not a tight bound: in a loaded parallel run on two
        // cores a stop that takes milliseconds alone took over 6 s to be scheduled.
        #expect(ContinuousClock.now - start < .seconds(30))
        // Either cut short with a 503 or cut off; never the real answer after a minute.
        let outcome = try? await slow.value
        #expect(outcome == nil || outcome?.status == 503)
        try await client.shutdown()
    }

    @Test func gracefulStopCutsLatencyShort() async throws {
        let sim = try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start()
        sim.control.setFaults(SimulatorFaults(latencyMs: 60_000))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let slow = Task { try await client.send(sim, "/health") }
        try await waitUntil { sim.control.calls("GET /health") == 1 }
        // A grace period longer than the latency: only the stop signal can end the request
        // before its minute is up, and it answers 503 ("simulator stopping"), where the latency
        // running out would answer 200. No clock is read (a loaded run delays everything).
        await sim.stop(gracePeriod: .seconds(120))
        let outcome = await slow.result
        try await client.shutdown()
        let response = try outcome.get()
        #expect(response.status == 503)
        #expect(response.body == #"{"detail":"simulator stopping"}"#)
    }

    @Test func rawResponsesLookLikeUvicorn() async throws {
        let sim = try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start()
        let id = try EightAllsStore(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).list { _ in true }.0[
            0
        ].id
        guard
            case .answered(let deleted) = await rawExchange(
                port: sim.port, request: "DELETE /api/events/\(id) HTTP/1.1\r\nHost: h\r\n\r\n")
        else {
            Issue.record("no answer to DELETE")
            await sim.stop()
            return
        }
        let lower = deleted.lowercased()
        #expect(lower.hasPrefix("http/1.1 204 no content\r\n"))
        #expect(lower.contains("content-type: application/json\r\n"))
        #expect(!lower.contains("content-length"))
        #expect(lower.contains("server: uvicorn\r\n"))
        #expect(lower.hasSuffix("\r\n\r\n"))

        let redirect = await rawExchange(
            port: sim.port, request: "GET /api/events/?q=a+b%20c HTTP/1.1\r\nHost: example:8000\r\n\r\n")
        guard case .answered(let text) = redirect else {
            Issue.record("no answer to the redirect")
            await sim.stop()
            return
        }
        #expect(text.lowercased().contains("location: http://example:8000/api/events?q=a+b%20c\r\n"))
        #expect(text.lowercased().contains("content-length: 0\r\n"))
        await sim.stop()
    }

    @Test func portOffsetsFollowTheCatalog() {
        // `daygate simulate --port-base N` puts simulator n of the catalog on N + n.
        let kinds = SimulatorKind.allCases
        #expect(kinds.map(\.portOffset) == Array(0..<kinds.count).map(Optional.some))
        #expect(Set(kinds).count == kinds.count, "a simulator listed twice")
        #expect(SimulatorKind("not-listed").portOffset == nil)
    }
}

@Suite("pydantic datetime parsing")
struct PydanticDateTimeTests {
    @Test func acceptsRFC3339Forms() throws {
        func parse(_ s: String) -> PyDateTime? {
            if case .success(let d) = PyDateTime.pydanticParse(s) { return d }
            return nil
        }
        let z = try #require(parse("2026-11-23T09:00:00Z"))
        #expect(z.offsetSeconds == 0)
        #expect(Civil.isoString(z.utcMicros) == "2026-11-23T09:00:00")
        let offset = try #require(parse("2026-11-23T14:00:00+01:00"))
        #expect(Civil.isoString(offset.utcMicros) == "2026-11-23T13:00:00")
        let naive = try #require(parse("2026-11-23 09:00:00.5"))
        #expect(naive.offsetSeconds == nil)
        #expect(Civil.isoString(naive.wallMicros) == "2026-11-23T09:00:00.500000")
        #expect(parse("2026-11-23T09:00") != nil)
        #expect(parse("1700000000")?.utcMicros == 1_700_000_000_000_000)
    }

    @Test func reportsSpeedateErrors() {
        func error(_ s: String) -> String? {
            if case .failure(let e) = PyDateTime.pydanticParse(s) { return e.rawValue }
            return nil
        }
        #expect(error("2026-11-24") == "invalid datetime separator, expected `T`, `t`, `_` or space")
        #expect(error("2026-11-23T09:00:00 01:00") == "invalid timezone sign")
        #expect(error("2026-11-23T09:00:00.1234567Z") == "second fraction value is more than 6 digits long")
        #expect(error("2026-13-01T00:00:00") == "month value is outside expected range of 1-12")
        #expect(error("tomorrow") == "input is too short")
        #expect(error("2026-11-23T25:00:00") == "hour value is outside expected range of 0-23")
    }

    @Test func fromISOFormatLikePython311() {
        #expect(PyDateTime.fromISOFormat("2026-11-23") != nil)
        #expect(PyDateTime.fromISOFormat("20261123") != nil)
        #expect(PyDateTime.fromISOFormat("2026-11-23T10:00+01:00")?.offsetSeconds == 3600)
        #expect(PyDateTime.fromISOFormat("23-11-2026") == nil)
        #expect(PyDateTime.fromISOFormat("2026-02-30") == nil)
    }
}

/// A connection opened and never used (an HTTP client's pool opens one more than it needs in a
/// burst) does not hold a simulator's stop: on a WebSocket-capable server (8alls) such a
/// connection waits in Hummingbird for its first request's upgrade decision, which neither
/// the graceful shutdown nor cancellation ended — the in-process tests' one-in-four stall.
@Suite struct SimulatorStopTests {
    @Test(.timeLimit(.minutes(1))) func anUnusedConnectionDoesNotHoldTheStop() async throws {
        for makeSimulator in [
            { try await EightAllsSimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start() },
            { try await TickedifySimulator(options: .init(seedDay: testSeedDay, timeZone: testTimeZone)).start() },
        ] as [@Sendable () async throws -> RunningSimulator] {
            let sim = try await makeSimulator()
            let idle = try connectedSocket(port: sim.port).get()
            defer { close(idle) }
            try await waitUntil { sim.connections.count == 1 }
            let start = ContinuousClock.now
            await sim.stop(gracePeriod: .seconds(20))
            #expect(ContinuousClock.now - start < .seconds(10), "\(sim.kind): \(ContinuousClock.now - start)")
        }
    }
}
