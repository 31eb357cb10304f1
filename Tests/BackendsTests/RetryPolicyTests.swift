import AsyncHTTPClient
import Backends
import Foundation
import Model
import NIOHTTP1
import Simulators
import Testing

/// Bounded, jittered retries: reads only, only failures that may pass, never a write.
@Suite("Retries of idempotent reads")
struct RetryPolicyTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!

    /// Upstream calls the 8alls simulator saw for one GET (or POST) under `faults`.
    static func calls(faults: SimulatorFaults, method: HTTPMethod = .GET, retry: RetryPolicy = .standard) async throws
        -> (Int, String)
    {
        let simulator = try await EightAllsSimulator(
            options: .init(seedDay: LocalDate.today(in: zone).description, timeZone: zone)
        ).start()
        simulator.control.setFaults(faults)
        let http = UpstreamHTTP(client: .shared, retry: retry)
        var outcome = "ok"
        do {
            let response = try await http.send(
                method, url: simulator.apiBaseURL + "/events", body: method == .POST ? Data("{}".utf8) : nil,
                timeout: 5,
                source: UpstreamSource(profile: "p", backend: "eightalls")
            )
            outcome = "\(response.status)"
        } catch let error as BackendError {
            outcome = error.kind.rawValue
        }
        let count = simulator.control.callCounts.values.reduce(0, +)
        await simulator.stop()
        return (count, outcome)
    }

    @Test func aReadIsRetriedTwiceAfterAConnectionFailureOrA502() async throws {
        let (resets, resetOutcome) = try await Self.calls(faults: SimulatorFaults(down: SimulatorFaults.reset))
        #expect(resets == 3)
        #expect(resetOutcome == "upstream_unreachable")
        let (bad, badOutcome) = try await Self.calls(faults: SimulatorFaults(errorStatus: 502))
        #expect(bad == 3)
        #expect(badOutcome == "502")
    }

    @Test func aTransientFailureIsHiddenByARetry() async throws {
        let (count, outcome) = try await Self.calls(faults: SimulatorFaults(errorStatus: 503, errorRate: 0.5))
        #expect((1...3).contains(count))
        _ = outcome  // 200 or, rarely, three 503s in a row
    }

    @Test func notRetriedA500ATimeoutA429OrAnyWrite() async throws {
        #expect(try await Self.calls(faults: SimulatorFaults(errorStatus: 500)).0 == 1)
        #expect(try await Self.calls(faults: SimulatorFaults(errorStatus: 429)).0 == 1)
        #expect(try await Self.calls(faults: SimulatorFaults(down: SimulatorFaults.reset), method: .POST).0 == 1)
        #expect(try await Self.calls(faults: SimulatorFaults(errorStatus: 502), method: .POST).0 == 1)
        #expect(try await Self.calls(faults: SimulatorFaults(down: SimulatorFaults.reset), retry: .none).0 == 1)
    }

    @Test func pausesAreJitteredAndBounded() {
        let policy = RetryPolicy(maximumRetries: 3, base: .milliseconds(100))
        let firsts = (0..<200).map { _ in policy.pause(before: 1) }
        #expect(firsts.allSatisfy { $0 <= .milliseconds(100) })
        #expect(Set(firsts).count > 20, "jittered")
        #expect((0..<200).map { _ in policy.pause(before: 3) }.allSatisfy { $0 <= .milliseconds(400) })
    }
}
