import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state folder on disk: made 0700 when missing, judged by `StateFolderCheck` before
/// the database in it is opened, and a private stand-in folder when it cannot be used.
enum StateFolder {
    static let databaseFiles = ["cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"]

    /// Makes the folder when it is missing and checks it and its database files; returns the
    /// folder to open the database in (the target, when the path is an accepted link, so the
    /// link is not followed again later). Throws `StateFolderRefusal` for a folder or file that
    /// is not safe to use, another error when it cannot be made or read.
    static func prepare(_ path: String, user: UInt32 = UInt32(geteuid())) throws -> String {
        let check = StateFolderCheck(user: user)
        var folderPath = path
        while folderPath.count > 1, folderPath.hasSuffix("/") { folderPath.removeLast() }
        var found = try item(at: folderPath)
        if found == nil {
            let parent = (folderPath as NSString).deletingLastPathComponent
            if !parent.isEmpty {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
            if mkdir(folderPath, 0o700) != 0, errno != EEXIST {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            found = try item(at: folderPath)
        }
        guard var folder = found else { throw POSIXError(.ENOENT) }
        if folder.kind == .symbolicLink {
            if let problem = check.link(folder) { throw StateFolderRefusal([problem]) }
            guard let resolved = realpath(folderPath, nil) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT)
            }
            folderPath = String(cString: resolved)
            free(resolved)
            guard let target = try item(at: folderPath) else { throw POSIXError(.ENOENT) }
            folder = target
        }
        guard folder.kind == .folder else { throw POSIXError(.ENOTDIR) }
        var files: [StateFolderCheck.Item] = []
        for name in databaseFiles {
            if let file = try item(at: (folderPath as NSString).appendingPathComponent(name)) { files.append(file) }
        }
        switch check.decide(folder: folder, files: files) {
        case .refuse(let problems):
            throw StateFolderRefusal(problems)
        case .use(let tighten):
            for path in tighten {
                guard chmod(path, path == folderPath ? 0o700 : 0o600) == 0 else {
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
                }
            }
        }
        return folderPath
    }

    /// What `lstat` says of `path`; nil when nothing is there.
    static func item(at path: String) throws -> StateFolderCheck.Item? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let kind: StateFolderCheck.Item.Kind
        switch status.st_mode & S_IFMT {
        case S_IFDIR: kind = .folder
        case S_IFREG: kind = .file
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        return StateFolderCheck.Item(path: path, kind: kind, owner: UInt32(status.st_uid), mode: UInt32(status.st_mode))
    }

    /// A new folder of this process's own in the temporary folder: a unique name (`mkdtemp`),
    /// mode 0700, never one that was there before (a predictable name could be made first by
    /// another user).
    static func makeStandIn() throws -> String {
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("daygate-state-XXXXXX")
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        guard made != nil else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Creates the (empty) database file 0600 when it is missing, without following a link
    /// and without a moment in which it is readable by others.
    static func createDatabaseFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}
