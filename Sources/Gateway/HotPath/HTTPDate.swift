import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    import Darwin
#endif

/// The `Date` header (RFC 9110 IMF-fixdate, `Mon, 23 Nov 2026 15:29:02 GMT`) that ends the
/// head of an answer the hot path writes itself, made once per second.
final class HTTPDate: Sendable {
    private let cached = Mutex<(second: Int64, tail: ByteBuffer)>((-1, ByteBuffer()))

    /// `\r\nDate: …\r\n\r\n` for the Unix `second`: the end of the last header line, the
    /// `Date` line, and the blank line after the head.
    func headTail(second: Int64) -> ByteBuffer {
        cached.withLock { cached in
            if cached.second != second {
                cached = (second, ByteBuffer(string: "\r\nDate: \(Self.format(Int(second)))\r\n\r\n"))
            }
            return cached.tail
        }
    }

    static func format(_ second: Int) -> String {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
