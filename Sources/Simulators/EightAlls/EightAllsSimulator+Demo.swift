import Model

extension SimulatorKind {
    /// 8alls (FastAPI): its API lives under `/api`.
    public static let eightalls = SimulatorKind("eightalls", apiPath: "/api")
}

extension DemoSimulator {
    /// 8alls in the demo: the seeded week, datetimes as the PostgreSQL deployment writes them;
    /// 8alls has no authentication, so the settings are its address.
    public static let eightalls = DemoSimulator(
        kind: .eightalls,
        start: { seed, port in
            try await EightAllsSimulator(options: .init(dateStyle: .zulu, seedDay: seed.day, timeZone: seed.timeZone))
                .start(port: port)
        },
        demoSettings: { running in .object(["base_url": .string(running.apiBaseURL)]) })
}
