import Model

extension SimulatorKind {
    /// Kantine Koning (Phoenix): its API sits at the root.
    public static let kantinekoning = SimulatorKind("kantinekoning")
}

extension DemoSimulator {
    /// Kantine Koning in the demo: the seeded clubs; the `default` profile holds the three
    /// working enrollments (``KantineKoningSimulator/demoEnrollments``).
    public static let kantinekoning = DemoSimulator(
        kind: .kantinekoning,
        start: { seed, port in
            try await KantineKoningSimulator(options: .init(seedDay: seed.day, timeZone: seed.timeZone))
                .start(port: port)
        },
        demoSettings: { running in
            .object([
                "base_url": .string(running.apiBaseURL),
                "enrollments": .array(
                    KantineKoningSimulator.demoEnrollments.map {
                        .object([
                            "tenant": .string($0.tenant), "role": .string($0.role.rawValue),
                            "token": .string($0.token), "label": .string($0.label),
                        ])
                    }),
            ])
        })
}
