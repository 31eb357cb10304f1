import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Secrets given to a command as files or on standard input instead of on its command line,
/// where every local user sees them (`ps`, `/proc/<pid>/cmdline`).
///
/// A file is read once, as a stream, to its end: `--password-file <(pass show x)` hands over a
/// pipe as `/dev/fd/N`, which has no size and can be read only once (no `stat`, no second
/// open). `-` is standard input. The line break at the end is dropped.
enum SecretInput {
    /// More than any password, key or link: a file this long is the wrong file.
    static let maximumBytes = 64 * 1024

    /// The secret in `source` (a path, or `-` for `standardInput`), for the flag `flag` (named
    /// in errors).
    static func contents(of source: String, flag: String, standardInput: Int32 = STDIN_FILENO) throws -> String {
        let descriptor: Int32
        if source == "-" {
            descriptor = standardInput
        } else {
            descriptor = open(source, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ValidationError("\(flag): cannot read \(source) (\(String(cString: strerror(errno))))")
            }
        }
        defer { if source != "-" { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in read(descriptor, buffer.baseAddress, buffer.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ValidationError("\(flag): cannot read \(source) (\(String(cString: strerror(errno))))")
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= maximumBytes else {
                throw ValidationError("\(flag): \(source) is longer than \(maximumBytes) bytes; is it the right file?")
            }
        }
        guard var text = String(bytes: bytes, encoding: .utf8) else {
            throw ValidationError("\(flag): \(source) is not UTF-8 text")
        }
        while text.hasSuffix("\n") || text.hasSuffix("\r") || text.hasSuffix("\r\n") { text.removeLast() }
        guard !text.isEmpty else { throw ValidationError("\(flag): \(source) is empty") }
        return text
    }

    /// The warning for a secret given on the command line.
    static func visibleWarning(_ flag: String, instead: String) -> String {
        "warning: \(flag) puts the secret on the command line, where other users of this machine can read it (ps); use \(instead) FILE (- for standard input) instead"
    }

    /// Writes `line` to standard error.
    static func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
