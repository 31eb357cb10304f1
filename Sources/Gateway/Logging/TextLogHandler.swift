import Logging

/// The `text` format: swift-log's `StreamLogHandler` line, with the handler's own metadata
/// kept apart and merged into a line only when one is written. (`StreamLogHandler` renders
/// its metadata to a string every time a key is set — twice per request, for the request ids —
/// even when nothing is ever logged at the configured level.)
struct TextLogHandler: LogHandler {
    private var inner: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(_ inner: StreamLogHandler) {
        self.inner = inner
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        }
        inner.log(event: event)
    }
}
