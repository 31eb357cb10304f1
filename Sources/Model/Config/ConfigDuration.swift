import Foundation

/// A span of time in config: a number of seconds (`90`) or a string with a unit
/// (`500ms`, `2s`, `5m`, `1h`, `7d`).
public struct ConfigDuration: Sendable, Hashable, Codable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }

    public static func seconds(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value) }
    public static func milliseconds(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value / 1000) }

    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            if let value = Double(number), value >= 0, value.isFinite {
                self.seconds = value * factor
                return
            }
        }
        if let value = Double(trimmed), value >= 0, value.isFinite {
            self.seconds = value
            return
        }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            guard number >= 0, number.isFinite else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a duration cannot be negative")
            }
            self.seconds = number
            return
        }
        let text = try container.decode(String.self)
        guard let value = ConfigDuration(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a duration such as 90, 500ms, 2s, 5m, 1h or 7d"
            )
        }
        self = value
    }

    /// Encodes the text a person writes (`5s`, `1500ms`), which decodes back to the same span.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String {
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        if seconds.rounded() == seconds { return "\(Int(seconds))s" }
        return "\(seconds)s"
    }
}
