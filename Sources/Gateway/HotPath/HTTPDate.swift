#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif
import Synchronization

/// The `Date` header value (RFC 9110 IMF-fixdate, `Mon, 23 Nov 2026 15:29:02 GMT`), made once
/// per second for answers the hot path writes itself.
final class HTTPDate: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    var now: String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let second = Int(time.tv_sec)
        return cached.withLock { cached in
            if cached.second != second { cached = (second, Self.format(second)) }
            return cached.text
        }
    }

    static func format(_ second: Int) -> String {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
