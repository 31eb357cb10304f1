/// The backends daygate talks to, each with a contract-faithful simulator (``ics`` plays any
/// calendar-feed server a household subscribes to).
///
/// `daygate simulate --port-base N` starts simulator `kind` on port `N + kind.portOffset`.
/// Each is a faithful fake of its real server, quirks included, with fault injection.
public enum SimulatorKind: String, CaseIterable, Sendable {
    case tickedify
    case eightalls
    case kantinekoning
    case fitiq
    case prsnl
    case ics

    /// Offset from a port base: tickedify 0, eightalls 1, kantinekoning 2, fitiq 3, prsnl 4, ics 5.
    public var portOffset: Int {
        switch self {
        case .tickedify: 0
        case .eightalls: 1
        case .kantinekoning: 2
        case .fitiq: 3
        case .prsnl: 4
        case .ics: 5
        }
    }

    /// Path prefix under which the backend's API lives ("" when the API sits at the root).
    var apiPath: String {
        switch self {
        case .eightalls: "/api"
        case .tickedify, .kantinekoning, .fitiq, .prsnl, .ics: ""
        }
    }
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
