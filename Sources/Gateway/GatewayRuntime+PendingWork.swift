import Cache
import Foundation

extension GatewayRuntime {
    /// What the gateway is working on and waiting for now, one line each, for an operator
    /// (`kill -USR1`, logged): the heartbeat's last proof, open connections, compositions on
    /// their way, and every cache key with a fetch in flight or requests waiting, longest first.
    /// A wait that never ends shows here as a fetch whose time grows (until its limit).
    public func pendingWorkReport() async -> [String] {
        var lines: [String] = []
        let proof = heartbeat.age().map { "last proof \($0.components.seconds) s ago" } ?? "no proof yet"
        lines.append("heartbeat: \(proof)\(heartbeat.isAlive() ? "" : " (stalled)")")
        lines.append("connections: \(connections.open) open of \(connections.limit)")
        let compositions = answers.compositionsInFlight
        lines.append("compositions on their way: \(compositions.plain), refetching: \(compositions.fresh)")
        let pending = await cache.pendingReport
        lines.append("cache keys busy: \(pending.count)")
        lines += pending.prefix(50).map { "  \($0)" }
        if pending.count > 50 { lines.append("  … \(pending.count - 50) more") }
        return lines
    }
}
