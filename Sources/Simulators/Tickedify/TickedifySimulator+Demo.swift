import Model

extension SimulatorKind {
    /// Tickedify (Express): its API sits at the root.
    public static let tickedify = SimulatorKind("tickedify")
}

extension DemoSimulator {
    /// Tickedify in the demo: the seeded week, the demo's users and Bas's account of the demo's
    /// household; the `default` profile logs in as ``TickedifySimulator/demoEmail``.
    public static let tickedify = DemoSimulator(
        kind: .tickedify,
        start: { seed, port in
            try await TickedifySimulator(
                options: .init(
                    seedDay: seed.day, timeZone: seed.timeZone,
                    users: TickedifySimulator.defaultUsers + [TickedifySimulator.demoHouseholdUser])
            ).start(port: port)
        },
        demoSettings: { running in
            .object([
                "base_url": .string(running.apiBaseURL), "email": .string(TickedifySimulator.demoEmail),
                "password": .string(TickedifySimulator.demoPassword),
            ])
        },
        memberSettings: { member, running in
            guard member == .bas else { return nil }
            return .object([
                "base_url": .string(running.apiBaseURL), "email": .string(TickedifySimulator.demoHouseholdUser.email),
                "password": .string(TickedifySimulator.demoHouseholdUser.password),
            ])
        })
}

extension TickedifySimulator {
    /// Bas's account in the demo's household (an account of its own, with nothing planned yet).
    public static let demoHouseholdUser = User(
        id: "user_1734620000000_b4s9v2r1e", email: "bas@example.org", password: "Bas-Demo-2026!", naam: "Bas de Vries")
}
