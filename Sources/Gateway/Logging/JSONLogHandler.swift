import Foundation
import Logging

/// Where a log handler writes its lines. Each call gets one complete line, trailing `"\n"`
/// included, so a sink only has to write the string as it is (tests collect them instead).
public typealias LogSink = @Sendable (_ line: String) -> Void

/// Writes each line to standard error with one `write(2)`, ignoring errors (a closed
/// stderr must not take the gateway down).
public let standardErrorLogSink: LogSink = { line in
    try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
}

/// A `LogHandler` that writes one JSON object per line:
///
///     {"ts":"2026-11-23T08:15:02.114Z","level":"info","label":"daygate","message":"GET /v1/today","duration_ms":"3.2","request_id":"1f0c2a9e-5b7d","status":"200"}
///
/// `ts` (UTC, milliseconds), `level`, `label` and `message` come first; then every metadata
/// key — the handler's own metadata, overridden by the metadata provider's, overridden by the
/// log call's — in sorted order, as top-level fields. String and `CustomStringConvertible`
/// values are JSON strings; dictionaries and arrays are JSON objects and arrays (keys sorted).
/// A logged error adds `error.message` and `error.type`, as `StreamLogHandler` does. A
/// metadata key that clashes with one of the four fixed fields is written as `metadata.<key>`.
/// The encoder is hand-written: any string is escaped (quotes, backslashes, every control
/// character, U+2028/U+2029); other non-ASCII text is written as UTF-8.
public struct JSONLogHandler: LogHandler {
    public static let reservedFields: Set<String> = ["ts", "level", "label", "message"]

    public let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let sink: LogSink
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - sink: receives each line; standard error by default.
    ///   - now: the clock for `ts`; tests may pin it.
    public init(
        label: String,
        level: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider,
        sink: @escaping LogSink = standardErrorLogSink,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.sink = sink
        self.now = now
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        sink(line(for: event))
    }

    @available(*, deprecated, renamed: "log(event:)")
    public func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        log(
            event: LogEvent(
                level: level, message: message, metadata: metadata,
                source: source, file: file, function: function, line: line
            ))
    }

    /// The line `log(event:)` writes, newline included.
    func line(for event: LogEvent) -> String {
        var fields = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            fields.merge(provided) { _, new in new }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            fields.merge(explicit) { _, new in new }
        }
        if let error = event.error {
            fields["error.message"] = .string("\(error)")
            fields["error.type"] = .string(String(reflecting: type(of: error)))
        }

        var out = "{\"ts\":"
        JSONText.appendString(Self.timestamp(now()), to: &out)
        out += ",\"level\":"
        JSONText.appendString(event.level.rawValue, to: &out)
        out += ",\"label\":"
        JSONText.appendString(label, to: &out)
        out += ",\"message\":"
        JSONText.appendString(event.message.description, to: &out)
        for (key, value) in Self.renamingReserved(fields).sorted(by: { $0.key < $1.key }) {
            out += ","
            JSONText.appendString(key, to: &out)
            out += ":"
            JSONText.appendValue(value, to: &out)
        }
        out += "}\n"
        return out
    }

    /// Moves metadata keys that would clash with the fixed fields to `metadata.<key>`.
    static func renamingReserved(_ fields: Logger.Metadata) -> Logger.Metadata {
        guard fields.keys.contains(where: reservedFields.contains) else { return fields }
        var result = fields.filter { !reservedFields.contains($0.key) }
        for key in reservedFields.sorted() {
            guard let value = fields[key] else { continue }
            var renamed = "metadata." + key
            while result[renamed] != nil { renamed = "metadata." + renamed }
            result[renamed] = value
        }
        return result
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, without a formatter (no locale, no shared state).
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        // Clamp to years 0000...9999 so any Date (even NaN or infinite) gives a valid string.
        // Work in whole microseconds first so that binary fractions (1.123 is 1.12299…) do
        // not lose a millisecond, then truncate to milliseconds.
        let maxMicroseconds: Int64 = 253_402_300_799_999_999
        let minMicroseconds: Int64 = -62_167_219_200_000_000
        let microseconds: Int64
        if seconds.isNaN {
            microseconds = 0
        } else {
            let scaled = (seconds * 1_000_000).rounded()
            microseconds =
                scaled >= Double(maxMicroseconds)
                ? maxMicroseconds
                : scaled <= Double(minMicroseconds)
                    ? minMicroseconds
                    : Int64(scaled)
        }
        let milliseconds = floorDivide(microseconds, 1000).0
        let (days, msOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        var out = ""
        out.reserveCapacity(24)
        pad(year, 4, &out)
        out += "-"
        pad(month, 2, &out)
        out += "-"
        pad(day, 2, &out)
        out += "T"
        pad(msOfDay / 3_600_000, 2, &out)
        out += ":"
        pad(msOfDay / 60_000 % 60, 2, &out)
        out += ":"
        pad(msOfDay / 1000 % 60, 2, &out)
        out += "."
        pad(msOfDay % 1000, 3, &out)
        out += "Z"
        return out
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a proleptic Gregorian date.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int, _ out: inout String) {
        let digits = String(value)
        if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
        out += digits
    }
}

/// A minimal JSON writer for log lines.
enum JSONText {
    static func appendValue(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let string):
            appendString(string, to: &out)
        case .stringConvertible(let convertible):
            appendString(convertible.description, to: &out)
        case .dictionary(let dictionary):
            out += "{"
            for (index, (key, nested)) in dictionary.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out += "," }
                appendString(key, to: &out)
                out += ":"
                appendValue(nested, to: &out)
            }
            out += "}"
        case .array(let array):
            out += "["
            for (index, nested) in array.enumerated() {
                if index > 0 { out += "," }
                appendValue(nested, to: &out)
            }
            out += "]"
        }
    }

    static func appendString(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x00..<0x20, 0x7F, 0x2028, 0x2029:
                out += "\\u"
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out += String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
