#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// systemd's notification protocol (`sd_notify(3)`): one datagram of `KEY=value` lines to the
/// Unix socket named by `NOTIFY_SOCKET` (a leading `@` names an abstract socket). `READY=1`
/// when the gateway serves, `WATCHDOG=1` from each heartbeat proof (`Heartbeat`),
/// `STOPPING=1` when it shuts down. Without `NOTIFY_SOCKET` (not under systemd with
/// `Type=notify`) it is not made.
public struct SystemdNotifier: Sendable {
    public let socketPath: String
    /// `WATCHDOG_USEC` (when it is for this process, `WATCHDOG_PID`): how often systemd must hear
    /// `WATCHDOG=1`; nil when no watchdog is set.
    public let watchdogInterval: Duration?

    public init?(environment: [String: String], pid: Int32 = getpid()) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty, path.utf8.count < 108 else { return nil }
        socketPath = path
        if let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0,
            environment["WATCHDOG_PID"].map({ Int32($0) == pid }) ?? true
        {
            watchdogInterval = .microseconds(microseconds)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `state` (e.g. `READY=1`); false when it could not be sent. Never blocks.
    @discardableResult
    public func send(_ state: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + path.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), socketAddress, length)
            }
        }
        return sent == message.count
    }
}
