import AsyncHTTPClient
import Backends
import Foundation
import Gateway
import Hummingbird
import HummingbirdTesting
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

/// An 8alls simulator on a free loopback port and a gateway runtime against it, with its own
/// state folder. `close()` stops everything; `restart()` opens a new runtime on the same state.
final class GatewayHarness: Sendable {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static var routesDir: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("routes").path
    }

    let simulator: RunningSimulator
    let stateDir: String
    let config: DaygateConfig
    let runtime: GatewayRuntime

    private init(simulator: RunningSimulator, stateDir: String, config: DaygateConfig) throws {
        self.simulator = simulator
        self.stateDir = stateDir
        self.config = config
        self.runtime = try GatewayRuntime(config: config, httpClient: .shared)
    }

    static func start(dateStyle: EightAllsSimulator.DateStyle = .zulu, timeout: ConfigDuration = .seconds(5))
        async throws -> GatewayHarness
    {
        let simulator = try await EightAllsSimulator(
            options: .init(
                dateStyle: dateStyle, seedDay: LocalDate.today(in: zone).description, timeZone: zone
            )
        ).start()
        let stateDir = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-gw-\(UUID().uuidString)")
            .path
        let config = DaygateConfig(
            stateDir: stateDir, timezone: zone.identifier, routesDir: routesDir, staticDir: "/nonexistent",
            profiles: [
                "default": ProfileConfig([
                    EightAllsSettings(endpoint: BackendEndpoint(baseURL: simulator.apiBaseURL, timeout: timeout))
                ])
            ]
        )
        do {
            return try GatewayHarness(simulator: simulator, stateDir: stateDir, config: config)
        } catch {
            await simulator.stop()
            throw error
        }
    }

    /// A second gateway on the same state folder and simulator: what a restart sees.
    func restarted() throws -> GatewayHarness {
        try GatewayHarness(simulator: simulator, stateDir: stateDir, config: config)
    }

    func close() async {
        await simulator.stop()
        try? FileManager.default.removeItem(atPath: stateDir)
    }

    /// Runs `body` against the gateway in-process (no socket), like a client would.
    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await GatewayApplication.make(runtime: runtime).test(.router, body)
    }

    /// Calls the simulator's own control surface.
    func simulatorCall(_ method: HTTPMethod, _ path: String, json: String? = nil) async throws -> JSONValue {
        var request = HTTPClientRequest(url: simulator.baseURL + path)
        request.method = method
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        return try JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))
    }

    /// Upstream calls the simulator counted for `GET /api/events`, read from `/_sim/stats`.
    func eventsCalls() async throws -> Int {
        let stats = try await simulatorCall(.GET, "/_sim/stats")
        if let count = stats["calls"]?["GET /api/events"]?.numberValue { return Int(count) }
        return 0
    }
}

extension TestResponse {
    var json: JSONValue {
        get throws { try JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView)) }
    }
}

/// Runs `body` with a harness and always closes it.
func withHarness<Value: Sendable>(
    dateStyle: EightAllsSimulator.DateStyle = .zulu, timeout: ConfigDuration = .seconds(5),
    _ body: (GatewayHarness) async throws -> Value
) async throws -> Value {
    let harness = try await GatewayHarness.start(dateStyle: dateStyle, timeout: timeout)
    do {
        let value = try await body(harness)
        await harness.close()
        return value
    } catch {
        await harness.close()
        throw error
    }
}
