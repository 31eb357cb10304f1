import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file that holds secrets (a config with a new client key, the simulators'
/// passwords) so that no other user can read it at any moment: a temporary file beside it is
/// created 0600 (`O_CREAT|O_EXCL`, never through a link), filled, synced and then moved into
/// place. `FileManager.createFile(…, attributes: 0600)` wrote the file with the usual 0644
/// first and changed its mode only after it was in place.
enum PrivateFile {
    /// Where a write is, for tests that check the mode at each step.
    enum Step: Equatable {
        /// The temporary file was just created (empty).
        case created
        /// The file is at its final path.
        case inPlace
    }

    struct Exists: Error {}

    /// Writes `data` to `path` with mode 0600. With `replacing` false an existing file is left
    /// as it is and `Exists` is thrown (checked atomically, with `link`).
    static func write(
        _ data: Data, to path: String, replacing: Bool, observe: (Step, String) -> Void = { _, _ in }
    ) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let suffix = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let temporary = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(".\(name).\(suffix).tmp")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(Self.code) }
        var placed = false
        defer { if !placed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            // The mode asked for is narrowed by the umask only; make sure the owner can read.
            guard fchmod(descriptor, 0o600) == 0 else { throw POSIXError(Self.code) }
            observe(.created, temporary)
            try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
            guard fsync(descriptor) == 0 else { throw POSIXError(Self.code) }
        }
        if replacing {
            guard rename(temporary, path) == 0 else { throw POSIXError(Self.code) }
        } else {
            guard link(temporary, path) == 0 else {
                if errno == EEXIST { throw Exists() }
                throw POSIXError(Self.code)
            }
            unlink(temporary)
        }
        placed = true
        observe(.inPlace, path)
    }

    private static var code: POSIXErrorCode { POSIXErrorCode(rawValue: errno) ?? .EIO }
}
