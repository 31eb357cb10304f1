import Backends
import Foundation
import Logging
import Model
import Simulators

/// What the backend write tests share: an operation context like the aggregator's for one
/// profile, and a simulator that is always stopped after the test body.
enum SimulatorBackedTest {
    static func context(_ profile: ProfileConfig, zone: TimeZone) -> OperationContext {
        OperationContext(
            profileName: "default", profile: profile, timeZone: zone, http: UpstreamHTTP(client: .shared),
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
}
