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
        /// The latest `durationSamples` service times per key, in milliseconds.
        var durations: [String: [Double]] = [:]
    }

    /// How many service times are kept per key (the latest ones).
    static let durationSamples = 1000

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
            $0.durations = [:]
        }
    }

    /// Records how long the simulator took to answer one call under `"METHOD /path"`, from the
    /// request's body read to the response handed back (latency faults included): what a
    /// client's own timing would show, less the loopback hop.
    func recordDuration(method: String, path: String, milliseconds: Double) {
        let key = "\(method) \(path)"
        state.withLock {
            var samples = $0.durations[key, default: []]
            if samples.count >= Self.durationSamples { samples.removeFirst(samples.count - Self.durationSamples + 1) }
            samples.append(milliseconds)
            $0.durations[key] = samples
        }
    }

    /// The median service time per key over the latest samples, in milliseconds.
    public var medianDurations: [String: Double] {
        state.withLock { $0.durations }.mapValues { samples in
            let sorted = samples.sorted()
            return sorted[sorted.count / 2]
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

    /// `{"calls":{...},"total":N,"median_ms":{...}}` (in that order, keys within sorted); `median_ms` is each
    /// key's median service time (``medianDurations``), rounded to 0.01 ms.
    var statsJSON: JSONValue {
        let (calls, total) = state.withLock { ($0.calls, $0.total) }
        let fields = calls.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) }
        let medians = medianDurations.sorted { $0.key < $1.key }.map {
            ($0.key, JSONValue.double(($0.value * 100).rounded() / 100))
        }
        return .object(
            JSONObject(fields: [
                ("calls", .object(JSONObject(fields: fields))), ("total", .int(total)),
                ("median_ms", .object(JSONObject(fields: medians))),
            ]))
    }
}
