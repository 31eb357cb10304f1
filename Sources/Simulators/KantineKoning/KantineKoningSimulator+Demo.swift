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
                "enrollments": .array(KantineKoningSimulator.demoEnrollments.map(\.settings)),
            ])
        },
        memberSettings: { member, running in
            // Bas's member enrollment at VV Wilhelmus, Mila's at AGOVV.
            let token =
                switch member {
                case .bas: KantineKoningSimulator.demoMemberToken
                case .mila: KantineKoningSimulator.demoClubBMemberToken
                }
            guard let enrollment = KantineKoningSimulator.demoEnrollments.first(where: { $0.token == token }) else {
                return nil
            }
            return .object(["base_url": .string(running.apiBaseURL), "enrollments": .array([enrollment.settings])])
        })
}

extension KantineKoningSimulator.Enrollment {
    /// This enrollment as a profile's `kantinekoning.enrollments` item writes it.
    var settings: JSONValue {
        .object([
            "tenant": .string(tenant), "role": .string(role.rawValue), "token": .string(token),
            "label": .string(label),
        ])
    }
}
