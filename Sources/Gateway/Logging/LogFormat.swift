import Logging

/// How log lines look: `text` is swift-log's `StreamLogHandler` line
/// (`<time> <level> <label>: key=value … [<module>] <message>`, see `TextLogHandler`), `json`
/// one JSON object per line (see `JSONLogHandler`).
public enum LogFormat: String, CaseIterable, Sendable {
    case text
    case json

    /// A handler for `label` at `level`. With no `sink` both formats write to standard error
    /// (`text` exactly as `StreamLogHandler.standardError`); with one, every line goes to it.
    public func makeHandler(
        label: String,
        level: Logger.Level,
        sink: LogSink? = nil,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) -> any LogHandler {
        switch self {
        case .text:
            var handler =
                if let sink {
                    StreamLogHandler(
                        label: label, stream: SinkOutputStream(sink: sink), metadataProvider: metadataProvider)
                } else {
                    StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
                }
            handler.logLevel = level
            return TextLogHandler(handler)
        case .json:
            return JSONLogHandler(
                label: label, level: level, metadataProvider: metadataProvider,
                sink: sink ?? standardErrorLogSink
            )
        }
    }
}

/// Adapts a `LogSink` to the `TextOutputStream` that `StreamLogHandler` writes to
/// (it writes each line, newline included, in one call).
struct SinkOutputStream: TextOutputStream, Sendable {
    let sink: LogSink

    mutating func write(_ string: String) {
        sink(string)
    }
}
