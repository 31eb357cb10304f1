import Model

extension SimulatorKind {
    /// PRSNL (FastAPI): its API sits at the root.
    public static let prsnl = SimulatorKind("prsnl")
}

extension DemoSimulator {
    /// PRSNL in the demo: the seeded links and notes; the `default` profile logs in as
    /// ``PRSNLSimulator/demoEmail``.
    public static let prsnl = DemoSimulator(
        kind: .prsnl,
        start: { seed, port in
            try await PRSNLSimulator(options: .init(seedDay: seed.day, timeZone: seed.timeZone)).start(port: port)
        },
        demoSettings: { running in
            .object([
                "base_url": .string(running.apiBaseURL), "email": .string(PRSNLSimulator.demoEmail),
                "password": .string(PRSNLSimulator.demoPassword),
            ])
        })
}
