import CoreMetrics
import Foundation
import HummingbirdCore
import Logging
import Model
import NIOCore
import Synchronization

/// How many client connections the gateway holds at once, kept below the process's open-file
/// limit so that upstream sockets, SQLite and the runtime always find a descriptor: running out
/// of them must never kill the process (libdispatch, for one, traps when it cannot open a file).
///
/// At the limit the server stops accepting: new connections wait in the kernel's accept queue
/// until one closes, and the connections already open keep being served. The limit being
/// reached is *pressure*: every connection is told (`ConnectionPressure`), and those that hold
/// a slot without using it — idle keep-alives, heads that have not arrived — are closed after
/// `ConnectionTimeouts.Settings.underPressure` instead of their usual limit. Pressure ends when
/// the count falls below nine tenths of the limit.
public final class ConnectionBudget: Sendable {
    /// Connections held at most.
    public let limit: Int
    /// Slow-client limits for each connection.
    let timeouts: ConnectionTimeouts.Settings
    private let state = Mutex<State>(State())
    private let closedCounters: [ConnectionTimeouts.Reason: Counter]
    private let pausedCounter: Counter
    private let logger: Logger

    private struct State {
        var open = 0
        var underPressure = false
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Pressure that began since it was last logged (a flood makes it come and go every second).
        var unloggedEpisodes = 0
        var loggedAt: ContinuousClock.Instant?
    }

    init(limit: Int, timeouts: ConnectionTimeouts.Settings, metrics: MetricsFactory, logger: Logger) {
        self.limit = limit
        self.timeouts = timeouts
        self.logger = logger
        var counters: [ConnectionTimeouts.Reason: Counter] = [:]
        for reason in ConnectionTimeouts.Reason.allCases {
            counters[reason] = Counter(
                label: "daygate_http_connections_closed_total", dimensions: [("reason", reason.rawValue)],
                factory: metrics
            )
        }
        self.closedCounters = counters
        self.pausedCounter = Counter(label: "daygate_http_accept_paused_total", factory: metrics)
    }

    /// Connections open now.
    public var open: Int { state.withLock { $0.open } }

    public var underPressure: Bool { state.withLock { $0.underPressure } }

    /// The limit for a process that may open `descriptors` files, from the configured
    /// `maxConnections`: every connection may need a second descriptor while it is served (a
    /// static file), and `reserved` stay free for everything else — a fixed 128 (SQLite and its
    /// WAL, event loops, timers, logs) plus a socket for every upstream connection the shared
    /// HTTP client may open (`upstreamHosts × perHost`, twice when the backends are simulated in
    /// this process, as in the demo, since both ends are then ours). Never below 16: a process
    /// with fewer descriptors than that cannot serve anyway.
    public static func limit(
        maxConnections: Int, descriptors: Int, upstreamHosts: Int, upstreamPerHost: Int, upstreamInProcess: Bool = false
    ) -> (limit: Int, reserved: Int) {
        let reserved = 128 + upstreamHosts * upstreamPerHost * (upstreamInProcess ? 2 : 1)
        let fitting = (descriptors - reserved) / 2
        return (max(16, min(maxConnections, fitting)), reserved)
    }

    /// The connections of the app this budget belongs to, for Hummingbird's accept gate.
    var acceptGate: some AvailableConnectionsDelegate { AcceptGate(budget: self) }

    /// Remembers `channel` until it closes, so pressure can reach it.
    func register(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { $0.channels[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = state.withLock { $0.channels.removeValue(forKey: id) }
        }
    }

    /// Cancels the request each open connection answers and closes the connection (a server
    /// cancelled without a graceful shutdown: a parked connection has no task that the
    /// cancellation could end, and a request's task is not a child of the server's).
    func closeAll() {
        for channel in state.withLock({ Array($0.channels.values) }) {
            channel.pipeline.fireUserInboundEventTriggered(ServerCancelled())
            channel.close(promise: nil)
        }
    }

    func countClosed(_ reason: ConnectionTimeouts.Reason) {
        closedCounters[reason]?.increment()
    }

    fileprivate func opened() {
        state.withLock { $0.open += 1 }
    }

    fileprivate func closed() {
        let relieved = state.withLock { state -> [any Channel]? in
            state.open -= 1
            guard state.underPressure, state.open * 10 < limit * 9 else { return nil }
            state.underPressure = false
            return Array(state.channels.values)
        }
        if let relieved {
            for channel in relieved { channel.pipeline.fireUserInboundEventTriggered(ConnectionPressure(on: false)) }
        }
    }

    fileprivate func accepting() -> Bool {
        enum Answer {
            case accept, wait
            case pressureBegins([any Channel], logEpisodes: Int?)
        }
        let answer = state.withLock { state -> Answer in
            guard state.open >= limit else { return .accept }
            guard !state.underPressure else { return .wait }
            state.underPressure = true
            state.unloggedEpisodes += 1
            let now = ContinuousClock.now
            var logEpisodes: Int?
            if state.loggedAt.map({ now - $0 >= .seconds(60) }) ?? true {
                logEpisodes = state.unloggedEpisodes
                state.unloggedEpisodes = 0
                state.loggedAt = now
            }
            return .pressureBegins(Array(state.channels.values), logEpisodes: logEpisodes)
        }
        switch answer {
        case .accept:
            return true
        case .wait:
            return false
        case .pressureBegins(let channels, let logEpisodes):
            pausedCounter.increment()
            if let logEpisodes {
                logger.warning(
                    "connection budget full: new connections wait until one closes; idle and slow ones are closed first",
                    metadata: ["limit": "\(limit)", "times_full_since_last_said": "\(logEpisodes)"]
                )
            }
            for channel in channels { channel.pipeline.fireUserInboundEventTriggered(ConnectionPressure(on: true)) }
            return false
        }
    }

    /// Hummingbird's hook on the listening socket: it asks before each accept and reports each
    /// connection opened and closed (all on the listening socket's event loop).
    private struct AcceptGate: AvailableConnectionsDelegate {
        let budget: ConnectionBudget
        mutating func connectionOpened() { budget.opened() }
        mutating func connectionClosed() { budget.closed() }
        func isAcceptingNewConnections() -> Bool { budget.accepting() }
    }
}

/// Sent to every connection when the budget fills up (`on`) and when it has room again.
struct ConnectionPressure {
    var on: Bool
}

/// Sent through each connection's pipeline when the server is cancelled (`closeAll`).
struct ServerCancelled: Sendable {}
