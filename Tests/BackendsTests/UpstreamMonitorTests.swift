import AsyncHTTPClient
import Backends
import CoreMetrics
import Foundation
import Model
import Prometheus
import Simulators
import Synchronization
import Testing

@Suite("Upstream monitor")
struct UpstreamMonitorTests {
    final class Clock: Sendable {
        let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func now() -> Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    let source = UpstreamSource(profile: "anna", backend: "eightalls")

    @Test func countsSuccessesAndErrorsPerSourceAndProfile() throws {
        let clock = Clock()
        let monitor = UpstreamMonitor(now: clock.now)
        try monitor.admit(source)
        monitor.record(source, .answered(status: 200, retryAfter: nil, error: nil), duration: .milliseconds(5))
        try monitor.admit(source)
        monitor.record(
            source,
            .answered(
                status: 502, retryAfter: nil,
                error: ErrorDetail(code: "upstream_error", message: "eightalls answered 502")),
            duration: .milliseconds(5)
        )
        let other = UpstreamSource(profile: "ben", backend: "eightalls")
        monitor.record(
            other, .failed(BackendError(.timeout, backend: "eightalls", message: "slow")), duration: .seconds(2))

        let anna = monitor.statuses(profile: "anna")
        #expect(anna.count == 1)
        #expect(anna[0].calls == 2)
        #expect(anna[0].errors == 1)
        #expect(anna[0].lastSuccess == clock.now())
        #expect(anna[0].lastError?.code == "upstream_error")
        #expect(monitor.statuses(profile: "ben").first?.lastError?.code == "upstream_timeout")
    }

    @Test func theCircuitOpensAndCallsAreRefusedWithoutBeingSent() throws {
        let clock = Clock()
        let monitor = UpstreamMonitor(policy: .init(failureThreshold: 3, openFor: 20), now: clock.now)
        for _ in 0..<3 {
            try monitor.admit(source)
            monitor.record(
                source, .failed(BackendError(.unreachable, backend: "eightalls", message: "reset")), duration: .zero)
        }
        #expect(monitor.statuses(profile: "anna")[0].circuit == .open)
        #expect(monitor.statuses(profile: "anna")[0].circuitOpenUntil == clock.now().addingTimeInterval(20))
        do {
            try monitor.admit(source)
            Issue.record("an open circuit must refuse")
        } catch {
            #expect(error.kind == .circuitOpen)
            #expect(error.retryAfter == 20)
        }
        clock.advance(20)
        #expect(monitor.statuses(profile: "anna")[0].circuit == .halfOpen)
        #expect(try monitor.admit(source) == .probe)
        monitor.record(
            source,
            .answered(status: 404, retryAfter: nil, error: ErrorDetail(code: "upstream_rejected", message: "no")),
            duration: .zero)
        #expect(monitor.statuses(profile: "anna")[0].circuit == .closed, "a 4xx proves the backend is up")
    }

    @Test func retryAfterHoldsBackTheSourceUnlessTheCallerOptsOut() throws {
        let clock = Clock()
        let monitor = UpstreamMonitor(now: clock.now)
        let limited = ErrorDetail(code: "upstream_rate_limited", message: "429")
        try monitor.admit(source)
        monitor.record(source, .answered(status: 429, retryAfter: 30, error: limited), duration: .zero, gate: false)
        #expect(try monitor.admit(source) == .allowed)
        monitor.record(source, .answered(status: 429, retryAfter: 30, error: limited), duration: .zero)
        #expect(throws: BackendError.self) { try monitor.admit(source) }
        #expect(monitor.statuses(profile: "anna")[0].retryAfterUntil == clock.now().addingTimeInterval(30))
        #expect(monitor.statuses(profile: "anna")[0].circuit == .closed, "429 is not a failure of the backend")
        clock.advance(30)
        #expect(try monitor.admit(source) == .allowed)
        #expect(monitor.statuses(profile: "anna")[0].retryAfterUntil == nil)
        // A backend asking for a day is held to the maximum.
        monitor.record(source, .answered(status: 503, retryAfter: 86_400, error: limited), duration: .zero)
        #expect(
            monitor.statuses(profile: "anna")[0].retryAfterUntil
                == clock.now().addingTimeInterval(UpstreamMonitor.maximumRetryAfter))
    }

    @Test func outcomesReachPrometheus() throws {
        let registry = PrometheusCollectorRegistry()
        let monitor = UpstreamMonitor(metrics: PrometheusMetricsFactory(registry: registry))
        monitor.record(source, .answered(status: 200, retryAfter: nil, error: nil), duration: .milliseconds(3))
        monitor.record(
            source, .failed(BackendError(.timeout, backend: "eightalls", message: "slow")), duration: .seconds(2))
        let text = registry.emitToString()
        #expect(text.contains(#"daygate_upstream_requests_total{backend="eightalls",result="2xx"} 1"#))
        #expect(text.contains(#"daygate_upstream_requests_total{backend="eightalls",result="upstream_timeout"} 1"#))
        #expect(text.contains(#"daygate_upstream_errors_total{backend="eightalls",code="upstream_timeout"} 1"#))
        #expect(text.contains(#"daygate_upstream_request_duration_seconds_count{backend="eightalls"} 2"#))
    }

    /// Counts the handles asked of a factory that records into `registry`.
    final class CountingFactory: MetricsFactory, Sendable {
        let inner: PrometheusMetricsFactory
        let made = Mutex(0)
        init(registry: PrometheusCollectorRegistry) { inner = PrometheusMetricsFactory(registry: registry) }
        func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
            made.withLock { $0 += 1 }
            return inner.makeCounter(label: label, dimensions: dimensions)
        }
        func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
            made.withLock { $0 += 1 }
            return inner.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
        }
        func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
            made.withLock { $0 += 1 }
            return inner.makeTimer(label: label, dimensions: dimensions)
        }
        func destroyCounter(_ handler: any CounterHandler) { inner.destroyCounter(handler) }
        func destroyRecorder(_ handler: any RecorderHandler) { inner.destroyRecorder(handler) }
        func destroyTimer(_ handler: any TimerHandler) { inner.destroyTimer(handler) }
    }

    /// A backend's request counter and timer are made once, not on every call; what they count
    /// is the same.
    @Test func metricHandlesAreMadeOncePerBackendAndResult() {
        let registry = PrometheusCollectorRegistry()
        let factory = CountingFactory(registry: registry)
        let monitor = UpstreamMonitor(metrics: factory)
        for _ in 0..<50 {
            monitor.record(source, .answered(status: 200, retryAfter: nil, error: nil), duration: .milliseconds(3))
        }
        #expect(factory.made.withLock { $0 } == 2, "one counter and one timer")
        monitor.record(source, .answered(status: 404, retryAfter: nil, error: nil), duration: .milliseconds(3))
        #expect(factory.made.withLock { $0 } == 3, "a new result: one more counter")
        let text = registry.emitToString()
        #expect(text.contains(#"daygate_upstream_requests_total{backend="eightalls",result="2xx"} 50"#))
        #expect(text.contains(#"daygate_upstream_request_duration_seconds_count{backend="eightalls"} 51"#))
    }

    /// Against the 8alls simulator answering 500: after the threshold no call reaches it
    /// however often the gateway is asked, and the simulator's own counter proves it.
    @Test func aDeadBackendIsNotHammered() async throws {
        let zone = TimeZone(identifier: "Europe/Amsterdam")!
        let simulator = try await EightAllsSimulator(
            options: .init(seedDay: LocalDate.today(in: zone).description, timeZone: zone)
        ).start()
        defer { Task { await simulator.stop() } }
        simulator.control.setFaults(SimulatorFaults(errorStatus: 500))
        let http = UpstreamHTTP(
            client: .shared, monitor: UpstreamMonitor(policy: .init(failureThreshold: 3, openFor: 60)))
        let client = EightAllsClient(
            endpoint: BackendEndpoint(baseURL: simulator.apiBaseURL), http: http, profile: "anna")
        var codes: [String] = []
        for _ in 0..<20 {
            do {
                _ = try await client.events(
                    start: Date(), end: Date().addingTimeInterval(3600), eventType: nil, status: nil)
            } catch let error as BackendError {
                codes.append(error.kind.rawValue)
            }
        }
        #expect(codes.prefix(3).allSatisfy { $0 == "upstream_error" })
        #expect(codes.dropFirst(3).allSatisfy { $0 == "upstream_circuit_open" })
        #expect(simulator.control.calls("GET /api/events") == 3)
        await simulator.stop()
    }
}
