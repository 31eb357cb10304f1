import Model
import NIOCore
import Synchronization

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

    private let header = Mutex<(second: Int64, value: String)>((-1, ""))

    /// The `Date` header's value for the Unix `second` (the router's answers).
    func header(second: Int64) -> String {
        header.withLock { header in
            if header.second != second { header = (second, Self.format(Int(second))) }
            return header.value
        }
    }

    static func format(_ second: Int) -> String {
        Civil.httpDate(Int64(second))
    }
}
