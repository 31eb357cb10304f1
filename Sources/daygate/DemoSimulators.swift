import Backends
import Foundation
import Logging
import Model
import ServiceLifecycle
import Simulators
import Yams

/// The simulators of the demo and of `daygate simulate`, seeded with a realistic week around
/// today in the household's timezone, and the profile that points the gateway at them.
struct DemoSimulators: Service {
    let running: [RunningSimulator]
    /// The household's profile against the simulators, with their demo credentials, read by the
    /// config loader from the simulators' own demo settings (``profileText(_:)``).
    let profile: ProfileConfig

    static func start(timeZone: TimeZone, portBase: Int?) async throws -> DemoSimulators {
        let seed = DemoSimulator.Seed(day: LocalDate.today(in: timeZone).description, timeZone: timeZone)
        var running: [RunningSimulator] = []
        do {
            for (offset, entry) in SimulatorCatalog.all.enumerated() {
                running.append(try await entry.start(seed: seed, port: portBase.map { $0 + offset } ?? 0))
            }
        } catch {
            for simulator in running { await simulator.stop() }
            throw FailureMessage(text: "cannot start the simulators: \(error)")
        }
        do {
            return DemoSimulators(running: running, profile: try Self.readProfile(Self.profileText(running)))
        } catch {
            for simulator in running { await simulator.stop() }
            throw FailureMessage(text: "the simulators' demo settings do not make a profile: \(error)")
        }
    }

    func simulator(_ kind: SimulatorKind) -> RunningSimulator? {
        running.first { $0.kind == kind }
    }

    /// The demo's `default` profile as a config file writes it (JSON, which is YAML): each
    /// simulator's own demo settings (`DemoSimulator.demoSettings`).
    static func profileText(_ running: [RunningSimulator]) -> String {
        var fields = JSONObject(fields: [])
        for simulator in running {
            guard let entry = SimulatorCatalog.entry(simulator.kind) else { continue }
            fields.fields.append((simulator.kind.rawValue, entry.demoSettings(for: simulator)))
        }
        return JSONValue.object(fields).serialized
    }

    /// Reads `text` as the config loader reads a config file's profile (unknown keys are errors).
    static func readProfile(_ text: String) throws -> ProfileConfig {
        try YAMLDocument(file: "demo profile", environment: [:], backends: BackendCatalog.settings)
            .decode(ProfileConfig.self, from: text, substitute: false)
    }

    /// The demo's household: Anna (the `default` profile, every backend), Bas (his own Tickedify
    /// and FitIQ accounts, his enrollment at VV Wilhelmus) and Mila (her enrollment at AGOVV);
    /// all three subscribe to the school's and the club's calendars, which the household's
    /// answer shows once, shared. Anna and Bas share their meals.
    var household: (profiles: [String: ProfileConfig], household: HouseholdConfig) {
        var profiles = ["default": profile]
        func shared() -> ICSSettings? {
            guard let simulator = simulator(.ics) else { return nil }
            return ICSSettings(
                calendars: ICSSimulator.demoCalendars.filter { ["school", "club"].contains($0.name) }.map { demo in
                    var calendar = ICSSettings.Calendar(
                        name: demo.name, url: simulator.baseURL + demo.path, color: demo.colour)
                    if case .basic(let user, let password) = demo.auth {
                        calendar.username = user
                        calendar.password = Secret(password)
                    }
                    return calendar
                })
        }
        func enrollment(_ token: String) -> KantineKoningSettings? {
            guard let simulator = simulator(.kantinekoning),
                let demo = KantineKoningSimulator.demoEnrollments.first(where: { $0.token == token })
            else { return nil }
            return KantineKoningSettings(
                endpoint: BackendEndpoint(baseURL: simulator.apiBaseURL),
                enrollments: [
                    .init(tenant: demo.tenant, role: demo.role.rawValue, token: Secret(demo.token), label: demo.label)
                ])
        }
        var bas: [any BackendSettings] = []
        if let simulator = simulator(.tickedify) {
            bas.append(
                TickedifySettings(
                    endpoint: BackendEndpoint(baseURL: simulator.apiBaseURL),
                    email: TickedifySimulator.demoHouseholdUser.email,
                    password: Secret(TickedifySimulator.demoHouseholdUser.password)))
        }
        if let simulator = simulator(.fitiq), FitIQSimulator.demoUsers.count > 1 {
            let user = FitIQSimulator.demoUsers[1]
            bas.append(
                FitIQSettings(
                    endpoint: BackendEndpoint(baseURL: simulator.apiBaseURL), apiKey: Secret(FitIQSimulator.demoAPIKey),
                    email: user.email, password: Secret(user.password)))
        }
        if let settings = enrollment(KantineKoningSimulator.demoMemberToken) { bas.append(settings) }
        if let settings = shared() { bas.append(settings) }
        profiles["bas"] = ProfileConfig(bas)
        var mila: [any BackendSettings] = []
        if let settings = enrollment(KantineKoningSimulator.demoClubBMemberToken) { mila.append(settings) }
        if let settings = shared() { mila.append(settings) }
        profiles["mila"] = ProfileConfig(mila)
        let household = HouseholdConfig(
            name: "De Vries",
            members: [
                .init(profile: "default", id: "anna", name: "Anna", color: "#2563eb", share: ["nutrition"]),
                .init(profile: "bas", name: "Bas", color: "#15803d", share: ["nutrition"]),
                .init(profile: "mila", name: "Mila", color: "#be185d"),
            ],
            wall: .init(night: NightHours("22:30-06:30")))
        return (profiles, household)
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
        // The profile as the config loader reads it, demo credentials included (the file is the
        // owner's, written 0600 by `simulate`).
        let profiles = (try? YAMLEncoder().encode(["default": profile], userInfo: [.revealSecrets: true])) ?? "{}\n"
        lines.append("profiles:")
        lines += profiles.split(separator: "\n").map { "  " + $0 }
        return lines.joined(separator: "\n") + "\n"
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
