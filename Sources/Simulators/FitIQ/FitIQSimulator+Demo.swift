import Model

extension SimulatorKind {
    /// FitIQ (FastAPI): its API sits at the root.
    public static let fitiq = SimulatorKind("fitiq")
}

extension DemoSimulator {
    /// FitIQ in the demo: the seeded week of meals, workouts and sleep; the `default` profile
    /// logs in as ``FitIQSimulator/demoEmail`` with the app's API key.
    public static let fitiq = DemoSimulator(
        kind: .fitiq,
        start: { seed, port in
            try await FitIQSimulator(options: .init(seedDay: seed.day, timeZone: seed.timeZone)).start(port: port)
        },
        demoSettings: { running in
            .object([
                "base_url": .string(running.apiBaseURL), "api_key": .string(FitIQSimulator.demoAPIKey),
                "email": .string(FitIQSimulator.demoEmail), "password": .string(FitIQSimulator.demoPassword),
            ])
        },
        memberSettings: { member, running in
            // Bas logs in as the second demo user.
            guard member == .bas, FitIQSimulator.demoUsers.count > 1 else { return nil }
            let user = FitIQSimulator.demoUsers[1]
            return .object([
                "base_url": .string(running.apiBaseURL), "api_key": .string(FitIQSimulator.demoAPIKey),
                "email": .string(user.email), "password": .string(user.password),
            ])
        })
}
