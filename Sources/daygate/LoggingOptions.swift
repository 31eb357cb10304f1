import ArgumentParser
import Gateway
import Logging

struct LoggingOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @Option(name: .customLong("log-format"), help: "text (default) or json: one JSON object per line.")
    var logFormat: LogFormat = .text

    func level() -> Logger.Level {
        Logger.Level(rawValue: logLevel.lowercased()) ?? .info
    }

    func bootstrap() {
        let level = level()
        let format = logFormat
        LoggingSystem.bootstrap { label in
            format.makeHandler(label: label, level: level)
        }
    }

    func logger() -> Logger {
        var logger = Logger(label: "daygate")
        logger.logLevel = level()
        return logger
    }
}

/// A bad value is refused with the choices, e.g. "The value 'xml' is invalid for
/// '--log-format <log-format>'. Please provide one of 'text' and 'json'."
extension LogFormat: ExpressibleByArgument {}
