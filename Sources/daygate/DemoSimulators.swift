import Foundation
import Logging
import Model
import ServiceLifecycle
import Simulators

/// The simulators of the demo and of `daygate simulate`, seeded with a realistic week around
/// today in the household's timezone, and the profile that points the gateway at them.
struct DemoSimulators: Service {
    let running: [RunningSimulator]

    static func start(timeZone: TimeZone, portBase: Int?) async throws -> DemoSimulators {
        let today = LocalDate.today(in: timeZone).description
        var running: [RunningSimulator] = []
        do {
            let eightAlls = EightAllsSimulator(options: .init(dateStyle: .zulu, seedDay: today, timeZone: timeZone))
            running.append(try await eightAlls.start(port: portBase.map { $0 + SimulatorKind.eightalls.portOffset } ?? 0))
        } catch {
            for simulator in running { await simulator.stop() }
            throw FailureMessage(text: "cannot start the simulators: \(error)")
        }
        return DemoSimulators(running: running)
    }

    func simulator(_ kind: SimulatorKind) -> RunningSimulator? {
        running.first { $0.kind == kind }
    }

    var profile: ProfileConfig {
        ProfileConfig(eightalls: simulator(.eightalls).map { BackendEndpoint(baseURL: $0.apiBaseURL) })
    }

    /// Runs until graceful shutdown, then stops the simulators.
    func run() async throws {
        try? await gracefulShutdown()
        await stop()
    }

    func stop() async {
        for simulator in running { await simulator.stop() }
    }

    /// A config file for `daygate serve` pointing at these simulators.
    func configYAML(timeZone: TimeZone, stateDir: String, routesDir: String?, staticDir: String?) -> String {
        var lines = [
            "# Written by `daygate simulate`: the gateway against the local simulators.",
            "listen: 127.0.0.1:8787",
            "state_dir: \(Self.quoted(stateDir))",
            "timezone: \(timeZone.identifier)",
        ]
        if let routesDir { lines.append("routes_dir: \(Self.quoted(routesDir))") }
        if let staticDir { lines.append("static_dir: \(Self.quoted(staticDir))") }
        lines.append("profiles:")
        lines.append("  default:")
        if let eightAlls = simulator(.eightalls) {
            lines.append("    eightalls:")
            lines.append("      base_url: \(eightAlls.apiBaseURL)")
            lines.append("      timeout: 5s")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
