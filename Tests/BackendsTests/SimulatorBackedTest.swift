import AsyncHTTPClient
import Backends
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators

/// What the backend write tests share: an operation context like the aggregator's for one
/// profile, and a simulator that is always stopped after the test body.
enum SimulatorBackedTest {
    static func context(_ profile: ProfileConfig, zone: TimeZone) -> OperationContext {
        OperationContext(
            profileName: "default", profile: profile, clock: RequestClock(now: Date(), timeZone: zone),
            http: UpstreamHTTP(client: .shared),
            sessions: SessionRegistry(vault: MemoryCredentialVault()), logger: Logger(label: "test")
        )
    }

    /// Runs `body` with `simulator` and its context, then stops the simulator whatever happened.
    static func run(
        _ simulator: RunningSimulator, profile: ProfileConfig, zone: TimeZone,
        _ body: (RunningSimulator, OperationContext) async throws -> Void
    ) async throws {
        do {
            try await body(simulator, context(profile, zone: zone))
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    /// Calls `path` on the simulator itself (its `/_sim` control surface, or an API route with
    /// `headers`) and decodes the JSON answer (`null` when it is not JSON).
    static func call(
        _ sim: RunningSimulator, _ method: HTTPMethod, _ path: String, json: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> JSONValue {
        var request = HTTPClientRequest(url: sim.baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))) ?? .null
    }
}
