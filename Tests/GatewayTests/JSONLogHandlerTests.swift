import ArgumentParser
import Foundation
import Logging
import Testing

@testable import Gateway
@testable import daygate

/// Collects what a handler writes, so tests read lines instead of stderr.
private final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var written: [String] = []

    var sink: LogSink {
        { [self] line in lock.withLock { written.append(line) } }
    }

    /// Everything written, split into lines (without the newlines).
    var lines: [String] {
        lock.withLock { written.joined() }.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Every call to the sink, as written.
    var writes: [String] { lock.withLock { written } }
}

private func parse(_ line: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(object as? [String: Any], "not a JSON object: \(line)")
}

private func jsonLogger(
    _ collector: LineCollector, label: String = "test", level: Logger.Level = .trace,
    metadataProvider: Logger.MetadataProvider? = nil
) -> Logger {
    var logger = Logger(label: label) { label in
        JSONLogHandler(label: label, level: level, metadataProvider: metadataProvider, sink: collector.sink)
    }
    logger.logLevel = level
    return logger
}

private struct Widget: CustomStringConvertible, Sendable {
    var description: String { "widget \"7\"\n" }
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "it broke" }
}

@Suite("JSON log handler")
struct JSONLogHandlerTests {
    @Test func everyLineIsOneJSONObjectWithTheFixedFields() throws {
        let collector = LineCollector()
        let logger = jsonLogger(collector, label: "daygate.test")
        for level in Logger.Level.allCases {
            logger.log(level: level, "hello \(level)")
        }
        let writes = collector.writes
        #expect(writes.count == Logger.Level.allCases.count)
        for (write, level) in zip(writes, Logger.Level.allCases) {
            #expect(write.hasSuffix("\n"))
            #expect(write.dropLast().contains("\n") == false)
            #expect(write.hasPrefix("{\"ts\":\""))
            let object = try parse(write)
            #expect(object["level"] as? String == level.rawValue)
            #expect(object["label"] as? String == "daygate.test")
            #expect(object["message"] as? String == "hello \(level)")
            let ts = try #require(object["ts"] as? String)
            #expect(ts.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(ts)")
        }
    }

    @Test func timestampIsISO8601UTCWithMilliseconds() {
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 1_709_164_800.5)) == "2024-02-29T00:00:00.500Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 1.0009)) == "1970-01-01T00:00:01.000Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 4_102_444_799.999)) == "2099-12-31T23:59:59.999Z")
        // Out-of-range and NaN dates clamp instead of crashing.
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
        #expect(JSONLogHandler.timestamp(.distantFuture).count == 24)
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")

        // Agrees with Foundation's formatter over a spread of instants (whole milliseconds).
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var milliseconds: Int64 = -2_208_988_800_000  // 1900-01-01
        while milliseconds < 4_102_444_800_000 {  // 2100-01-01
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(JSONLogHandler.timestamp(date) == formatter.string(from: date))
            milliseconds += 37_987_654_321
        }
    }

    @Test func pinnedClockGoesIntoTs() throws {
        let collector = LineCollector()
        let handler = JSONLogHandler(
            label: "x", sink: collector.sink, now: { Date(timeIntervalSince1970: 1_795_000_000.123) }
        )
        Logger(label: "x") { _ in handler }.info("tick")
        let object = try parse(try #require(collector.lines.first))
        #expect(object["ts"] as? String == "2026-11-18T11:06:40.123Z")
    }

    @Test func metadataBecomesTopLevelFieldsInSortedOrder() throws {
        let collector = LineCollector()
        let provider = Logger.MetadataProvider { ["trace_id": "t-1", "shared": "from provider"] }
        var logger = jsonLogger(collector, metadataProvider: provider)
        logger[metadataKey: "request_id"] = "1f0c2a9e-5b7d"
        logger[metadataKey: "shared"] = "from handler"
        logger[metadataKey: "zeta"] = "handler only"
        logger.info(
            "GET /v1/today",
            metadata: [
                "status": "200",
                "shared": "from call",
                "nested": ["b": "2", "a": ["x", .stringConvertible(Widget())]],
                "list": ["one", ["k": "v"]],
                "widget": .stringConvertible(Widget()),
            ])
        let line = try #require(collector.lines.first)
        let object = try parse(line)
        #expect(object["request_id"] as? String == "1f0c2a9e-5b7d")
        #expect(object["trace_id"] as? String == "t-1")
        #expect(object["status"] as? String == "200")
        #expect(object["shared"] as? String == "from call")
        #expect(object["zeta"] as? String == "handler only")
        #expect(object["widget"] as? String == "widget \"7\"\n")
        let nested = try #require(object["nested"] as? [String: Any])
        #expect(nested["b"] as? String == "2")
        #expect(nested["a"] as? [String] == ["x", "widget \"7\"\n"])
        let list = try #require(object["list"] as? [Any])
        #expect(list.first as? String == "one")
        #expect((list.last as? [String: Any])?["k"] as? String == "v")

        // Fixed fields first, then metadata keys sorted; nested keys sorted too.
        let keyOrder = [
            "\"ts\"", "\"level\"", "\"label\"", "\"message\"", "\"list\"", "\"nested\"",
            "\"request_id\"", "\"shared\"", "\"status\"", "\"trace_id\"", "\"widget\"", "\"zeta\"",
        ]
        let positions = keyOrder.map { try? #require(line.range(of: $0 + ":")).lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(line.contains("\"nested\":{\"a\":[\"x\",\"widget \\\"7\\\"\\n\"],\"b\":\"2\"}"))
    }

    @Test func specialCharactersSurviveARoundTrip() throws {
        let nasty =
            "quote \" backslash \\ slash / newline \n cr \r tab \t nul \u{0} bell \u{7} esc \u{1B} us \u{1F} del \u{7F} "
            + "ls \u{2028} ps \u{2029} bom \u{FEFF} é ß 日本語 🙂 👨‍👩‍👧 e\u{301}"
        let collector = LineCollector()
        var logger = jsonLogger(collector, label: "label \"\n\(nasty)")
        logger[metadataKey: "key \"\n\u{1}é"] = .string(nasty)
        logger.warning("\(nasty)", metadata: ["nested": [.string(nasty), ["in \(nasty)": .string(nasty)]]])

        let writes = collector.writes
        #expect(writes.count == 1)
        let line = try #require(writes.first)
        #expect(line.last == "\n")
        // One physical line, no raw control characters inside it.
        #expect(
            line.dropLast().unicodeScalars.allSatisfy {
                $0.value >= 0x20 && $0.value != 0x7F && $0 != "\u{2028}" && $0 != "\u{2029}"
            })

        let object = try parse(line)
        #expect(object["message"] as? String == nasty)
        #expect(object["label"] as? String == "label \"\n\(nasty)")
        #expect(object["key \"\n\u{1}é"] as? String == nasty)
        let nested = try #require(object["nested"] as? [Any])
        #expect(nested.first as? String == nasty)
        #expect((nested.last as? [String: String]) == ["in \(nasty)": nasty])
        // Non-ASCII is written as UTF-8, not \u escapes.
        #expect(line.contains("日本語 🙂"))
    }

    @Test func levelFilteringDropsLowerLevels() throws {
        let collector = LineCollector()
        let logger = jsonLogger(collector, level: .warning)
        logger.trace("t")
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        logger.critical("c")
        let levels = try collector.lines.map { try parse($0)["level"] as? String }
        #expect(levels == ["warning", "error", "critical"])

        // The handler's level is the logger's level, and can be changed per logger.
        var quieter = logger
        quieter.logLevel = .critical
        quieter.error("dropped")
        #expect(collector.lines.count == 3)
        #expect(logger.logLevel == .warning)
    }

    @Test func reservedKeysAndErrorsAreKept() throws {
        let collector = LineCollector()
        let logger = jsonLogger(collector)
        logger.error("real message", error: Boom(), metadata: ["message": "shadow", "level": "shadow level"])
        let object = try parse(try #require(collector.lines.first))
        #expect(object["message"] as? String == "real message")
        #expect(object["level"] as? String == "error")
        #expect(object["metadata.message"] as? String == "shadow")
        #expect(object["metadata.level"] as? String == "shadow level")
        #expect(object["error.message"] as? String == "it broke")
        #expect((object["error.type"] as? String)?.hasSuffix("Boom") == true)
    }

    @Test func requestIDEndToEndThroughALogger() throws {
        // What RequestIDMiddleware does: the id is logger metadata, the access line adds more.
        let collector = LineCollector()
        var logger = Logger(label: "daygate") { label in
            LogFormat.json.makeHandler(label: label, level: .info, sink: collector.sink, metadataProvider: nil)
        }
        logger[metadataKey: "request_id"] = .string("1f0c2a9e-5b7d")
        logger.debug("not shown at info")
        logger.info("GET /v1/today", metadata: ["status": "200", "duration_ms": "3.2"])
        logger.warning("upstream slow", metadata: ["backend": "eightalls"])

        let objects = try collector.lines.map(parse)
        #expect(objects.count == 2)
        #expect(objects.allSatisfy { $0["request_id"] as? String == "1f0c2a9e-5b7d" })
        #expect(objects.allSatisfy { $0["label"] as? String == "daygate" })
        #expect(objects[0]["message"] as? String == "GET /v1/today")
        #expect(objects[0]["status"] as? String == "200")
        #expect(objects[0]["duration_ms"] as? String == "3.2")
        #expect(objects[1]["level"] as? String == "warning")
        #expect(objects[1]["backend"] as? String == "eightalls")
        #expect(objects[1]["status"] == nil)
    }

    @Test func textFormatShowsMetadataOnTheLine() throws {
        let collector = LineCollector()
        var logger = Logger(label: "daygate") { label in
            LogFormat.text.makeHandler(label: label, level: .info, sink: collector.sink, metadataProvider: nil)
        }
        logger[metadataKey: "request_id"] = "1f0c2a9e-5b7d"
        logger.debug("hidden")
        logger.info("GET /v1/today", metadata: ["status": "200"])
        let lines = collector.lines
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.contains("info daygate:"))
        #expect(line.contains("request_id=1f0c2a9e-5b7d"))
        #expect(line.contains("status=200"))
        #expect(line.hasSuffix("GET /v1/today"))
    }

    @Test func logFormatOption() throws {
        #expect(try LoggingOptions.parse([]).logFormat == .text)
        #expect(try LoggingOptions.parse(["--log-format", "json"]).logFormat == .json)
        #expect(try LoggingOptions.parse(["--log-format", "text", "--log-level", "debug"]).logFormat == .text)
        #expect(LogFormat.allCases.map(\.rawValue) == ["text", "json"])
        do {
            _ = try LoggingOptions.parse(["--log-format", "xml"])
            Issue.record("--log-format xml was accepted")
        } catch {
            let message = LoggingOptions.message(for: error)
            #expect(message.contains("'xml'"), "\(message)")
            #expect(message.contains("'text'") && message.contains("'json'"), "\(message)")
        }
    }
}
