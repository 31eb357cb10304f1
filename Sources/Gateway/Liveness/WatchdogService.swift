import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// Drives the `Heartbeat` and tells systemd: a round every `heartbeat.interval` — a task on
/// each event loop, then this task's own pause on the executor that runs requests — and, when
/// the round is a proof, `WATCHDOG=1` (when systemd set a watchdog). `READY=1` is sent by the
/// runner once the server listens; `STOPPING=1` when shutdown begins. A gateway whose loops or
/// executor stop sends no more `WATCHDOG=1`, so systemd restarts it (`WatchdogSec=`), and its
/// `/healthz` says so if it can still answer at all.
public struct WatchdogService: Service {
    let heartbeat: Heartbeat
    let loops: [any EventLoop]
    let notifier: SystemdNotifier?
    let logger: Logger
    /// A test hook (`daygate serve --debug-stall-after`): after this long every event loop is
    /// blocked for ever, as a lost wake-up or a runaway computation would, so the watchdog's
    /// restart can be shown. Never set in production.
    let stallAfter: Duration?

    public init(
        heartbeat: Heartbeat, loops: [any EventLoop], notifier: SystemdNotifier?, logger: Logger,
        stallAfter: Duration? = nil
    ) {
        self.heartbeat = heartbeat
        self.loops = loops
        self.notifier = notifier
        self.logger = logger
        self.stallAfter = stallAfter
    }

    public func run() async throws {
        let started = ContinuousClock.now
        if let interval = notifier?.watchdogInterval {
            logger.info(
                "systemd watchdog: a heartbeat proof is sent every \(heartbeat.interval), systemd waits \(interval)")
        }
        await cancelWhenGracefulShutdown {
            var stalled = false
            while !Task.isCancelled {
                let round = heartbeat.beginRound(loops: loops.count)
                for (index, loop) in loops.enumerated() {
                    loop.execute { heartbeat.loopRan(index, round: round) }
                }
                try? await Task.sleep(for: heartbeat.interval)
                if heartbeat.roundEnded(round), notifier?.watchdogInterval != nil {
                    notifier?.send("WATCHDOG=1")
                }
                if let stallAfter, !stalled, ContinuousClock.now - started >= stallAfter {
                    stalled = true
                    logger.critical("--debug-stall-after: blocking every event loop for ever, as a test asked")
                    for loop in loops {
                        loop.execute {
                            while true { sleep(3600) }
                        }
                    }
                }
            }
        }
        notifier?.send("STOPPING=1")
    }
}
