import Aggregation
import AsyncHTTPClient
import Backends
import Foundation
import Gateway
import HummingbirdTesting
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Synchronization
import Testing

@testable import daygate

extension SimulatorKind {
    /// The kinds `DemoSimulators` starts: all of them.
    static let demoKinds: [SimulatorKind] = allCases
}

/// Every simulator of the catalog on free ports, seeded like the demo, and a gateway runtime against them
/// (the demo's own wiring, `DemoSimulators`). Logs are captured so tests can look for secrets.
final class DemoHarness: Sendable {
    static let zone = GatewayHarness.zone
    let simulators: DemoSimulators
    let stateDir: String
    let config: DaygateConfig
    let runtime: GatewayRuntime
    let logs: LogCapture

    /// The circuit policy and clock the runtime was built with (the standard ones unless a test
    /// asked otherwise), kept so `restarted()` builds the same kind of runtime.
    let circuit: CircuitBreaker.Policy
    let now: @Sendable () -> Date

    private init(
        simulators: DemoSimulators, stateDir: String, config: DaygateConfig, logs: LogCapture,
        circuit: CircuitBreaker.Policy = .standard, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.simulators = simulators
        self.stateDir = stateDir
        self.config = config
        self.logs = logs
        self.circuit = circuit
        self.now = now
        self.runtime = try GatewayRuntime(
            config: config, logger: logs.logger(), httpClient: .shared, circuit: circuit, now: now)
    }

    /// - Parameters:
    ///   - circuit: the runtime's circuit-breaker policy (the standard one by default).
    ///   - now: the runtime's clock (cache windows, backoff, circuits, `Retry-After`); a test can
    ///     move it forward to skip a wait.
    ///   - household: the demo's household of three (`DemoSimulators.household`: Anna on the
    ///     `default` profile, Bas and Mila on their own) instead of one profile.
    static func start(
        clients: [ClientConfig] = [], adjust: (inout ProfileConfig) -> Void = { _ in },
        limits: LimitsSettings = LimitsSettings(),
        circuit: CircuitBreaker.Policy = .standard, now: @escaping @Sendable () -> Date = { Date() },
        household: Bool = false
    ) async throws -> DemoHarness {
        let simulators = try await DemoSimulators.start(timeZone: zone, portBase: nil)
        var profile = simulators.profile
        adjust(&profile)
        var profiles = ["default": profile]
        var householdConfig: HouseholdConfig? = nil
        if household {
            profiles = simulators.household.profiles
            profiles["default"] = profile
            householdConfig = simulators.household.household
        }
        let stateDir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-demo-\(UUID().uuidString)"
        ).path
        let config = DaygateConfig(
            stateDir: stateDir, timezone: zone.identifier, routesDir: GatewayHarness.routesDir,
            staticDir: "/nonexistent",
            profiles: profiles, clients: clients, limits: limits, household: householdConfig
        )
        do {
            return try DemoHarness(
                simulators: simulators, stateDir: stateDir, config: config, logs: LogCapture(), circuit: circuit,
                now: now)
        } catch {
            await simulators.stop()
            throw error
        }
    }

    /// A new runtime on the same state folder and simulators: what a restart sees; `adjust`
    /// edits the `default` profile first (a config edited while the gateway was stopped).
    func restarted(adjust: (inout ProfileConfig) -> Void = { _ in }) throws -> DemoHarness {
        var config = config
        if var profile = config.profiles["default"] {
            adjust(&profile)
            config.profiles["default"] = profile
        }
        return try DemoHarness(
            simulators: simulators, stateDir: stateDir, config: config, logs: logs, circuit: circuit, now: now)
    }

    func close() async {
        await simulators.stop()
        try? FileManager.default.removeItem(atPath: stateDir)
    }

    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await GatewayApplication.make(runtime: runtime).test(.router, body)
    }

    /// The sections of the route at `path` that run for `profile` (its backends configured),
    /// as the route files declare them: what a test counts instead of spelling the backends.
    func sections(of path: String, profile: String = "default") -> [RouteSection] {
        guard let route = runtime.routes.first(where: { $0.path == path }),
            let settings = config.profiles[profile]
        else { return [] }
        return route.sections.filter { $0.operation.isConfigured(for: settings) }
    }

    func simulator(_ kind: SimulatorKind) -> RunningSimulator {
        simulators.simulator(kind)!
    }

    /// Calls a simulator's control surface (or any path on it, with `headers` such as an API key)
    /// and decodes the JSON answer.
    func call(
        _ kind: SimulatorKind, _ method: HTTPMethod, _ path: String, json: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> JSONValue {
        var request = HTTPClientRequest(url: simulator(kind).baseURL + path)
        request.method = method
        request.headers.add(contentsOf: headers)
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))) ?? .null
    }

    func calls(_ kind: SimulatorKind, _ key: String) -> Int {
        simulator(kind).control.calls(key)
    }
}

func withDemo<Value: Sendable>(
    clients: [ClientConfig] = [], adjust: (inout ProfileConfig) -> Void = { _ in },
    limits: LimitsSettings = LimitsSettings(),
    circuit: CircuitBreaker.Policy = .standard, now: @escaping @Sendable () -> Date = { Date() },
    household: Bool = false,
    _ body: (DemoHarness) async throws -> Value
) async throws -> Value {
    let harness = try await DemoHarness.start(
        clients: clients, adjust: adjust, limits: limits, circuit: circuit, now: now, household: household)
    do {
        let value = try await body(harness)
        await harness.close()
        return value
    } catch {
        await harness.close()
        throw error
    }
}

/// Collects every log line (message and metadata) at trace level.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func logger() -> Logger {
        var logger = Logger(label: "daygate-test") { _ in CapturingHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct CapturingHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = self.metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(all)")
        }
    }
}
