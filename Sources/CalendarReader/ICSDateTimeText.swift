/// The text form of a DATE (`20261124`) or DATE-TIME (`20261124T093000`, `…Z`) value.
/// Seconds may be missing (`20261124T0930`), which some producers write.
public struct ICSDateTimeText: Sendable, Equatable {
    public let wall: ICSLocalDateTime
    public let isDate: Bool
    public let isUTC: Bool

    public init?(_ text: String) {
        let bytes = Array(text.trimmingWhitespace.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 8, let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else {
            return nil
        }
        if bytes.count == 8 {
            wall = ICSLocalDateTime(year: year, month: month, day: day)
            isDate = true
            isUTC = false
        } else {
            guard bytes[8] == UInt8(ascii: "T") || bytes[8] == UInt8(ascii: "t"), let hour = number(9..<11),
                let minute = number(11..<13)
            else { return nil }
            var index = 13
            var second = 0
            if let seconds = number(13..<15) {
                second = seconds
                index = 15
            }
            var utc = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
                utc = true
                index += 1
            }
            guard index == bytes.count else { return nil }
            wall = ICSLocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            isDate = false
            isUTC = utc
        }
        guard wall.isValid, (1...9999).contains(year) else { return nil }
    }
}
