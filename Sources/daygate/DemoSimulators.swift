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
        func port(_ kind: SimulatorKind) -> Int { portBase.map { $0 + kind.portOffset } ?? 0 }
        do {
            running.append(
                try await TickedifySimulator(options: .init(seedDay: today, timeZone: timeZone)).start(
                    port: port(.tickedify)))
            running.append(
                try await EightAllsSimulator(options: .init(dateStyle: .zulu, seedDay: today, timeZone: timeZone))
                    .start(port: port(.eightalls)))
            running.append(
                try await KantineKoningSimulator(options: .init(seedDay: today, timeZone: timeZone)).start(
                    port: port(.kantinekoning)))
            running.append(
                try await FitIQSimulator(options: .init(seedDay: today, timeZone: timeZone)).start(port: port(.fitiq)))
            running.append(
                try await PRSNLSimulator(options: .init(seedDay: today, timeZone: timeZone)).start(port: port(.prsnl)))
        } catch {
            for simulator in running { await simulator.stop() }
            throw FailureMessage(text: "cannot start the simulators: \(error)")
        }
        return DemoSimulators(running: running)
    }

    func simulator(_ kind: SimulatorKind) -> RunningSimulator? {
        running.first { $0.kind == kind }
    }

    /// The household's profile against the simulators, with their demo credentials.
    var profile: ProfileConfig {
        ProfileConfig(
            tickedify: simulator(.tickedify).map {
                TickedifySettings(
                    endpoint: BackendEndpoint(baseURL: $0.apiBaseURL), email: TickedifySimulator.demoEmail,
                    password: TickedifySimulator.demoPassword)
            },
            eightalls: simulator(.eightalls).map { BackendEndpoint(baseURL: $0.apiBaseURL) },
            kantinekoning: simulator(.kantinekoning).map {
                KantineKoningSettings(
                    endpoint: BackendEndpoint(baseURL: $0.apiBaseURL),
                    enrollments: KantineKoningSimulator.demoEnrollments.map {
                        .init(tenant: $0.tenant, role: $0.role.rawValue, token: $0.token, label: $0.label)
                    }
                )
            },
            fitiq: simulator(.fitiq).map {
                FitIQSettings(
                    endpoint: BackendEndpoint(baseURL: $0.apiBaseURL), apiKey: FitIQSimulator.demoAPIKey,
                    email: FitIQSimulator.demoEmail, password: FitIQSimulator.demoPassword
                )
            },
            prsnl: simulator(.prsnl).map {
                PRSNLSettings(
                    endpoint: BackendEndpoint(baseURL: $0.apiBaseURL), email: PRSNLSimulator.demoEmail,
                    password: PRSNLSimulator.demoPassword)
            }
        )
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
        let profile = self.profile
        if let settings = profile.tickedify {
            lines += [
                "    tickedify:", "      base_url: \(settings.endpoint.baseURL)",
                "      email: \(Self.quoted(settings.email))", "      password: \(Self.quoted(settings.password))",
            ]
        }
        if let endpoint = profile.eightalls {
            lines += ["    eightalls:", "      base_url: \(endpoint.baseURL)", "      timeout: 5s"]
        }
        if let settings = profile.kantinekoning {
            lines += ["    kantinekoning:", "      base_url: \(settings.endpoint.baseURL)", "      enrollments:"]
            for enrollment in settings.enrollments {
                lines += [
                    "        - tenant: \(enrollment.tenant)", "          role: \(enrollment.role)",
                    "          label: \(Self.quoted(enrollment.label))",
                    "          token: \(Self.quoted(enrollment.token))",
                ]
            }
        }
        if let settings = profile.fitiq {
            lines += [
                "    fitiq:", "      base_url: \(settings.endpoint.baseURL)",
                "      api_key: \(Self.quoted(settings.apiKey))",
                "      email: \(Self.quoted(settings.email ?? ""))",
                "      password: \(Self.quoted(settings.password ?? ""))",
            ]
        }
        if let settings = profile.prsnl {
            lines += [
                "    prsnl:", "      base_url: \(settings.endpoint.baseURL)",
                "      email: \(Self.quoted(settings.email ?? ""))",
                "      password: \(Self.quoted(settings.password ?? ""))",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
