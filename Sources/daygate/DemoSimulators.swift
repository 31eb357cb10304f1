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
    /// The household's other members' profiles, read the same way from what each simulator
    /// declares for them (``profileText(_:member:)``).
    let memberProfiles: [DemoMember: ProfileConfig]

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
            var members: [DemoMember: ProfileConfig] = [:]
            for member in DemoMember.allCases {
                members[member] = try Self.readProfile(Self.profileText(running, member: member))
            }
            return DemoSimulators(
                running: running, profile: try Self.readProfile(Self.profileText(running)), memberProfiles: members)
        } catch {
            for simulator in running { await simulator.stop() }
            throw FailureMessage(text: "the simulators' demo settings do not make a profile: \(error)")
        }
    }

    func simulator(_ kind: SimulatorKind) -> RunningSimulator? {
        running.first { $0.kind == kind }
    }

    /// The demo's `default` profile as a config file writes it (JSON, which is YAML): each
    /// simulator's own demo settings (`DemoSimulator.demoSettings`); with `member`, that member's
    /// profile: the sections of the simulators that give the member an account
    /// (`DemoSimulator.memberSettings`).
    static func profileText(_ running: [RunningSimulator], member: DemoMember? = nil) -> String {
        var fields = JSONObject(fields: [])
        for simulator in running {
            guard let entry = SimulatorCatalog.entry(simulator.kind) else { continue }
            if let member {
                if let settings = entry.memberSettings(member, for: simulator) {
                    fields.fields.append((simulator.kind.rawValue, settings))
                }
            } else {
                fields.fields.append((simulator.kind.rawValue, entry.demoSettings(for: simulator)))
            }
        }
        return JSONValue.object(fields).serialized
    }

    /// Reads `text` as the config loader reads a config file's profile (unknown keys are errors).
    static func readProfile(_ text: String) throws -> ProfileConfig {
        try YAMLDocument(file: "demo profile", environment: [:], backends: BackendCatalog.settings)
            .decode(ProfileConfig.self, from: text, substitute: false)
    }

    /// The demo's household: Anna (the `default` profile, every backend) and the other members
    /// (``DemoMember``), each with the accounts the simulators give them — Bas his own Tickedify
    /// and FitIQ accounts and his enrollment at VV Wilhelmus, Mila her enrollment at AGOVV; all
    /// three subscribe to the school's and the club's calendars, which the household's answer
    /// shows once, shared. Anna and Bas share their meals.
    var household: (profiles: [String: ProfileConfig], household: HouseholdConfig) {
        var profiles = ["default": profile]
        for (member, profile) in memberProfiles { profiles[member.rawValue] = profile }
        let household = HouseholdConfig(
            name: "De Vries",
            members: [.init(profile: "default", id: "anna", name: "Anna", color: "#2563eb", share: ["nutrition"])]
                + DemoMember.allCases.map { member in
                    .init(
                        profile: member.rawValue, name: member.name, color: member.colour,
                        share: member == .bas ? ["nutrition"] : [])
                },
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
