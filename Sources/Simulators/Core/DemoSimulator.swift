import Foundation
import Model

/// How the demo (and `daygate simulate`) runs one simulator: its kind, how it starts seeded with
/// a realistic week, and the settings of the demo's `default` profile that point the gateway at
/// it. Each simulator's folder declares its entry (`XSimulator+Demo.swift`); ``SimulatorCatalog``
/// lists them.
///
/// The settings are written as a config file writes them (the backend's section under
/// `profiles.default`: `base_url`, the demo's credentials, …) because this module does not know
/// the gateway's settings types: the demo reads them through the config loader like any config,
/// so they are checked the same way (unknown keys are errors).
public struct DemoSimulator: Sendable {
    /// What a demo simulator is seeded with.
    public struct Seed: Sendable {
        /// The household's local "today", `YYYY-MM-DD`: the seeded week is around it.
        public var day: String
        /// The household's zone.
        public var timeZone: TimeZone

        public init(day: String, timeZone: TimeZone) {
            self.day = day
            self.timeZone = timeZone
        }
    }

    public let kind: SimulatorKind
    private let starter: @Sendable (Seed, Int) async throws -> RunningSimulator
    private let settingsMaker: @Sendable (RunningSimulator) -> JSONValue
    private let memberSettingsMaker: @Sendable (DemoMember, RunningSimulator) -> JSONValue?

    /// - Parameters:
    ///   - start: starts the simulator seeded with `seed` on `port` (0: a free one).
    ///   - demoSettings: the backend's settings in the demo's profile, in config-file shape, for
    ///     the running simulator.
    ///   - memberSettings: the settings of the household's other members who have an account of
    ///     their own here (nil: none; by default nobody has).
    public init(
        kind: SimulatorKind, start: @escaping @Sendable (_ seed: Seed, _ port: Int) async throws -> RunningSimulator,
        demoSettings: @escaping @Sendable (RunningSimulator) -> JSONValue,
        memberSettings: @escaping @Sendable (DemoMember, RunningSimulator) -> JSONValue? = { _, _ in nil }
    ) {
        self.kind = kind
        self.starter = start
        self.settingsMaker = demoSettings
        self.memberSettingsMaker = memberSettings
    }

    /// Starts the simulator seeded with `seed` on `port` (0: a free one).
    public func start(seed: Seed, port: Int) async throws -> RunningSimulator {
        try await starter(seed, port)
    }

    /// The backend's section of the demo's `default` profile, pointing at `running`.
    public func demoSettings(for running: RunningSimulator) -> JSONValue {
        settingsMaker(running)
    }

    /// The backend's section of `member`'s profile in the demo's household, pointing at
    /// `running`; nil when the member has no account here.
    public func memberSettings(_ member: DemoMember, for running: RunningSimulator) -> JSONValue? {
        memberSettingsMaker(member, running)
    }
}
