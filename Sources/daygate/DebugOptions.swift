import ArgumentParser

/// Options for tests only, not shown in `--help`.
struct DebugOptions: ParsableArguments {
    @Option(
        name: .customLong("debug-stall-after"),
        help: ArgumentHelp(
            "Seconds after which every event loop is blocked for ever (watchdog tests).", visibility: .private))
    var stallAfter: Double?

    var stallDuration: Duration? {
        stallAfter.map { .milliseconds(Int64(max(0, $0) * 1000)) }
    }
}
