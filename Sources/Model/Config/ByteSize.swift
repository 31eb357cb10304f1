import Foundation

/// A size in config: bytes (`1048576`) or a string with a unit (`64KB`, `100MB`, `1GB`;
/// binary multiples).
public struct ByteSize: Sendable, Hashable, Codable {
    public var bytes: Int

    public init(bytes: Int) {
        self.bytes = bytes
    }

    public static func megabytes(_ value: Int) -> ByteSize { ByteSize(bytes: value * 1_048_576) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            guard number > 0 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a size must be positive")
            }
            self.bytes = number
            return
        }
        let text = try container.decode(String.self).trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int)] = [
            ("KB", 1024), ("MB", 1_048_576), ("GB", 1_073_741_824), ("K", 1024), ("M", 1_048_576), ("G", 1_073_741_824),
            ("B", 1),
        ]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            if let value = Int(text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), value > 0 {
                self.bytes = value * factor
                return
            }
        }
        throw DecodingError.dataCorruptedError(
            in: container, debugDescription: "expected a size such as 1048576, 64KB or 100MB")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bytes)
    }
}
