#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ProcessIdentity {
    /// This process, as read from `/proc` once (fields left empty where it cannot be read).
    public static let current: ProcessIdentity = {
        let pid = getpid()
        let boot = readSmallFile("/proc/sys/kernel/random/boot_id")?.filter { !$0.isWhitespace } ?? ""
        return ProcessIdentity(
            boot: boot.contains(":") ? "" : boot, namespace: pidNamespace(), pid: pid,
            start: startOfProcess(pid) ?? 0)
    }()

    /// Whether the holder `identity` still runs, as this process can tell.
    public static func livenessOnThisMachine(_ identity: ProcessIdentity) -> Liveness {
        let startOfPID: UInt64??
        if access("/proc/self/stat", R_OK) != 0 {
            startOfPID = nil
        } else {
            startOfPID = .some(startOfProcess(identity.pid))
        }
        return identity.liveness(seenFrom: current, startOfPID: startOfPID)
    }

    /// The start of process `pid`, or nil when no process has that id.
    static func startOfProcess(_ pid: Int32) -> UInt64? {
        guard let line = readSmallFile("/proc/\(pid)/stat") else { return nil }
        return start(ofStatLine: Substring(line))
    }

    /// The id of this process's PID namespace (the inode `/proc/self/ns/pid` names), or "".
    static func pidNamespace() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        guard count > 0 else { return "" }
        let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // "pid:[4026531836]"
        return String(link.filter(\.isNumber))
    }

    /// A small file's text (at most 4 KB read), or nil when it cannot be opened.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes[0..<count], as: UTF8.self)
    }
}
