import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A client connection as a plain socket, for what an HTTP client library will not do: send
/// half a request and stop, trickle bytes, hold a connection idle. Reads never block a thread:
/// they poll with a zero timeout and sleep between tries.
final class RawClient: @unchecked Sendable {
    let fd: Int32
    private(set) var received: [UInt8] = []
    private(set) var closed = false

    struct ConnectFailed: Error { var errno: Int32 }

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ConnectFailed(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ConnectFailed(errno: code)
        }
    }

    private var open = true

    deinit {
        close()
    }

    /// Closes the client's end.
    func close() {
        guard open else { return }
        open = false
        Glibc.close(fd)
    }

    /// Ends the client's sending side (a half-close: the server reads its end), keeping its
    /// receiving side open.
    func finishSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Sends all of `text`; false when the connection refused it (closed by the server).
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads whatever has arrived, without waiting; notes when the server closed.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !closed {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else { return }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 {
                received += buffer[0..<n]
            } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                closed = true
            }
        }
    }

    /// Waits until `done` holds (checked after each read) or `timeout` passes; returns how long
    /// it waited and whether `done` held.
    @discardableResult
    func wait(timeout: Duration, until done: (RawClient) -> Bool) async -> (held: Bool, after: Duration) {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < timeout {
            drain()
            if done(self) { return (true, ContinuousClock.now - started) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        drain()
        return (done(self), ContinuousClock.now - started)
    }

    /// Waits for the server to close the connection.
    @discardableResult
    func waitForClose(timeout: Duration) async -> (closed: Bool, after: Duration) {
        let outcome = await wait(timeout: timeout) { $0.closed }
        return (outcome.held, outcome.after)
    }

    var text: String { String(decoding: received, as: UTF8.self) }

    /// Complete answers received so far (status lines counted).
    var answers: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }

    /// The status code of the first answer, if one arrived.
    var status: Int? {
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    /// The body of the first answer (after the blank line).
    var body: String {
        guard let range = text.range(of: "\r\n\r\n") else { return "" }
        return String(text[range.upperBound...])
    }
}
