/// Which backend a simulator plays: its name (the backend's name in a profile, e.g. `tickedify`)
/// and where its API lives on the simulator's port. Each simulator's folder declares its own kind
/// (`SimulatorKind.tickedify` in `Tickedify/TickedifySimulator+Demo.swift`); the ones the demo and
/// `daygate simulate` start are listed once, in ``SimulatorCatalog``.
public struct SimulatorKind: Hashable, Sendable, CustomStringConvertible {
    /// The backend's name, as a profile names it (`tickedify`, `eightalls`, …).
    public let rawValue: String
    /// Path prefix under which the backend's API lives ("" when the API sits at the root).
    public let apiPath: String

    public init(_ name: String, apiPath: String = "") {
        self.rawValue = name
        self.apiPath = apiPath
    }

    public var description: String { rawValue }

    /// The catalog's simulators in order (what `allCases` was when the kinds were an enum).
    public static var allCases: [SimulatorKind] { SimulatorCatalog.all.map(\.kind) }

    /// Offset from a port base: the kind's place in ``SimulatorCatalog/all`` (tickedify 0,
    /// eightalls 1, …); nil for a kind the catalog does not list.
    public var portOffset: Int? { SimulatorCatalog.all.firstIndex { $0.kind == self } }
}

/// Errors thrown while starting a simulator.
public enum SimulatorError: Error, CustomStringConvertible, Sendable {
    /// Simulators only listen on loopback: 127.0.0.1, ::1 or localhost.
    case nonLoopbackHost(String)
    /// A seed day that is not a valid `YYYY-MM-DD` date.
    case invalidSeedDay(String)
    /// The server did not come up (bind failure and the like).
    case startFailed(String)

    public var description: String {
        switch self {
        case .nonLoopbackHost(let host):
            "simulators listen on loopback only (127.0.0.1, ::1 or localhost), not '\(host)'"
        case .invalidSeedDay(let day):
            "seed day '\(day)' is not a valid YYYY-MM-DD date"
        case .startFailed(let reason):
            "simulator failed to start: \(reason)"
        }
    }
}
