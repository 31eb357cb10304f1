import Model
import Synchronization

/// The control surface every simulator shares: the active faults and per-path call statistics.
///
/// Reachable over HTTP on the simulator's own port (`/_sim/faults`, `/_sim/stats`,
/// `/_sim/stats/reset`) and from Swift through ``RunningSimulator/control``.
/// Every request outside `/_sim/` is counted under `"METHOD /path"` (no query string) before any
/// fault applies, so a faulted call counts too. `/_sim/` requests are never counted or faulted.
public final class SimulatorControl: Sendable {
    private struct State {
        var faults: SimulatorFaults
        var calls: [String: Int] = [:]
        var total = 0
    }

    private let state: Mutex<State>

    public init(faults: SimulatorFaults = .off) {
        self.state = Mutex(State(faults: faults))
    }

    /// The faults currently injected.
    public var faults: SimulatorFaults {
        state.withLock { $0.faults }
    }

    /// Replaces every fault; `SimulatorFaults()` clears them.
    public func setFaults(_ faults: SimulatorFaults) {
        state.withLock { $0.faults = faults }
    }

    /// Clears every fault.
    public func clearFaults() {
        setFaults(.off)
    }

    /// Calls seen for `key`, e.g. `calls("GET /api/events")`.
    public func calls(_ key: String) -> Int {
        state.withLock { $0.calls[key] ?? 0 }
    }

    /// A snapshot of every per-path count.
    public var callCounts: [String: Int] {
        state.withLock { $0.calls }
    }

    /// All counted calls.
    public var totalCalls: Int {
        state.withLock { $0.total }
    }

    /// Forgets every count.
    public func resetStats() {
        state.withLock {
            $0.calls = [:]
            $0.total = 0
        }
    }

    /// Counts one call under `"METHOD /path"`.
    func record(method: String, path: String) {
        let key = "\(method) \(path)"
        state.withLock {
            $0.calls[key, default: 0] += 1
            $0.total += 1
        }
    }

    /// `{"calls":{...},"total":N}` with keys sorted.
    var statsJSON: JSONValue {
        let (calls, total) = state.withLock { ($0.calls, $0.total) }
        let fields = calls.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) }
        return .object(["calls": .object(JSONObject(fields: fields)), "total": .int(total)])
    }
}
