import ArgumentParser
import Logging

struct LoggingOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func level() -> Logger.Level {
        Logger.Level(rawValue: logLevel.lowercased()) ?? .info
    }

    func bootstrap() {
        let level = level()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    func logger() -> Logger {
        var logger = Logger(label: "daygate")
        logger.logLevel = level()
        return logger
    }
}
