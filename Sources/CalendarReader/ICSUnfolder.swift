/// RFC 5545 §3.1 line unfolding, done on bytes so a fold that splits a UTF-8 sequence (Outlook
/// folds at 75 octets, not characters) is joined before the text is decoded.
public enum ICSUnfolder {
    /// One logical line and the 1-based physical line it starts on.
    public struct Line: Sendable, Equatable {
        public let number: Int
        public let text: String
    }

    /// Splits on CRLF, LF or a lone CR; a line starting with a space or a tab continues the
    /// previous one (the first whitespace character is dropped). Empty lines are skipped.
    public static func unfold(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var current: [UInt8] = []
        var currentNumber = 0
        var physical = 0
        var index = 0
        // A leading UTF-8 byte-order mark is not part of the first line.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        func flush() {
            if !current.isEmpty {
                lines.append(Line(number: currentNumber, text: String(decoding: current, as: UTF8.self)))
            }
            current.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            physical += 1
            var end = index
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            let line = bytes[index..<end]
            if let first = line.first, first == 0x20 || first == 0x09, currentNumber > 0 {
                current.append(contentsOf: line.dropFirst())
            } else {
                flush()
                current.append(contentsOf: line)
                currentNumber = physical
            }
            index = end
            if index < bytes.count, bytes[index] == 0x0D { index += 1 }
            if index < bytes.count, bytes[index] == 0x0A { index += 1 }
        }
        flush()
        return lines
    }
}
