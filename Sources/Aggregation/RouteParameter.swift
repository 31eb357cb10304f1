import Backends
import Foundation
import Model

/// A validated route parameter: its type, default and bounds.
public struct RouteParameter: Sendable, Hashable {
    public enum Default: Sendable, Hashable {
        case value(ArgumentValue)
        /// Today in the configured timezone, plus `offset` days.
        case today(offset: Int)
    }

    /// Where a path parameter's real values come from: the value at `pointer` (a JSON pointer)
    /// in the answer of the route at `path`.
    public struct ValuesFrom: Sendable, Hashable {
        public var path: String
        public var pointer: String

        public init(path: String, pointer: String) {
            self.path = path
            self.pointer = pointer
        }

        /// `/v1/knowledge/recent#/items/0/id`; nil for anything else.
        public init?(_ text: String) {
            guard let hash = text.firstIndex(of: "#") else { return nil }
            let path = String(text[..<hash])
            let pointer = String(text[text.index(after: hash)...])
            // The pointer goes into an OpenAPI runtime expression as it is: plain characters only.
            guard path.hasPrefix("/v1/"), !path.contains("{"), path.allSatisfy({ $0.isASCII && !$0.isWhitespace }),
                pointer.hasPrefix("/"),
                pointer.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/_-.~".contains($0)) })
            else { return nil }
            self.init(path: path, pointer: pointer)
        }

        public var description: String { "\(path)#\(pointer)" }
    }

    public static let maximumStringLength = 200

    public var name: String
    public var kind: ArgumentValue.Kind
    public var description: String?
    public var defaultValue: Default?
    public var defaultUnlessGiven: [String]
    public var min: Int?
    public var max: Int?
    public var maxLength: Int
    public var values: [String]?
    /// The example /openapi.json shows (one is made up when nil).
    public var example: ArgumentValue?
    /// A path parameter's real values (an OpenAPI link from that route's answer).
    public var valuesFrom: ValuesFrom?

    public init(
        name: String, kind: ArgumentValue.Kind, description: String? = nil, defaultValue: Default? = nil,
        defaultUnlessGiven: [String] = [], min: Int? = nil, max: Int? = nil,
        maxLength: Int = RouteParameter.maximumStringLength, values: [String]? = nil
    ) {
        self.name = name
        self.kind = kind
        self.description = description
        self.defaultValue = defaultValue
        self.defaultUnlessGiven = defaultUnlessGiven
        self.min = min
        self.max = max
        self.maxLength = maxLength
        self.values = values
    }

    /// Parses one query value, or says what is wrong with it (the message names the parameter).
    public func parse(_ raw: String) throws(ErrorDetail) -> ArgumentValue {
        switch kind {
        case .date:
            guard let date = LocalDate(raw) else {
                throw .badParameter("\(name) must be a date YYYY-MM-DD, got \"\(Self.shown(raw))\"")
            }
            return .date(date)
        case .int:
            guard let number = Int(raw) else {
                throw .badParameter("\(name) must be a whole number, got \"\(Self.shown(raw))\"")
            }
            if let min, number < min { throw .badParameter("\(name) must be at least \(min), got \(number)") }
            if let max, number > max { throw .badParameter("\(name) must be at most \(max), got \(number)") }
            return .int(number)
        case .string:
            // Counted in Unicode code points, as JSON Schema's maxLength counts (a letter with
            // twenty combining marks is one Character but 21 code points).
            let length = raw.unicodeScalars.count
            guard length <= maxLength else {
                throw .badParameter("\(name) is \(length) characters long; at most \(maxLength)")
            }
            guard !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw .badParameter("\(name) contains control characters")
            }
            if let values, !values.contains(raw) {
                throw .badParameter(
                    "\(name) must be one of \(values.joined(separator: ", ")), got \"\(Self.shown(raw))\"")
            }
            return .string(raw)
        case .bool:
            switch raw.lowercased() {
            case "true", "1", "yes": return .bool(true)
            case "false", "0", "no": return .bool(false)
            default: throw .badParameter("\(name) must be true or false, got \"\(Self.shown(raw))\"")
            }
        }
    }

    public func resolveDefault(timeZone: TimeZone, now: Date) -> ArgumentValue? {
        switch defaultValue {
        case .value(let value): value
        case .today(let offset): .date(LocalDate.today(in: timeZone, now: now).adding(days: offset))
        case nil: nil
        }
    }

    /// Echoes client input in messages safely: short, no control characters.
    public static func shown(_ raw: String, limit: Int = 40) -> String {
        let cleaned = String(
            raw.unicodeScalars.filter {
                $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
            }.map(Character.init))
        return cleaned.count > limit ? String(cleaned.prefix(limit)) + "…" : cleaned
    }
}
