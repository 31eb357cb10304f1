/// Whether the gateway may use what it finds at its state folder: the folder itself and the
/// database files in it (`cache.sqlite`, its `-wal` and `-shm`; the credential vault is a table
/// of that database). Pure: `StateFolder` gathers what is there, this type decides.
///
/// The folder holds every session cookie, access token and refresh token of the household. A
/// folder another local user can write to, or a database they made, would let that user plant
/// a database the gateway then fills with tokens (and they read), or swap its files. So:
/// - the folder and each file must be owned by the gateway's user (root's own folder is fine
///   when it runs as root), and writable by nobody else (no group or other write bit);
/// - a symbolic link at the folder's path is followed only when it was made by the gateway's
///   user or root (systemd's `DynamicUser=` makes `/var/lib/<name>` such a link to
///   `/var/lib/private/<name>`), and what it points to is judged like any folder; a link made
///   by anyone else is refused, and so is a link in place of a database file;
/// - the gateway's own folder and files readable by others are made private (0700, 0600):
///   that needs nobody's trust, only a `chmod`.
public struct StateFolderCheck: Sendable {
    /// What is at one path, as `lstat` sees it (links not followed).
    public struct Item: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case folder, file, symbolicLink, other
        }

        public var path: String
        public var kind: Kind
        /// The owner's user id.
        public var owner: UInt32
        /// The permission bits (`0o755`).
        public var mode: UInt32

        public init(path: String, kind: Kind, owner: UInt32, mode: UInt32) {
            self.path = path
            self.kind = kind
            self.owner = owner
            self.mode = mode & 0o7777
        }
    }

    /// Why a path is refused.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        case linkedByAnother(path: String, owner: UInt32)
        case linkInPlaceOfFile(path: String)
        case ownedByAnother(path: String, owner: UInt32, user: UInt32)
        case writableByOthers(path: String, mode: UInt32)
        case notAFile(path: String)

        public var path: String {
            switch self {
            case .linkedByAnother(let path, _), .linkInPlaceOfFile(let path), .ownedByAnother(let path, _, _),
                .writableByOthers(let path, _), .notAFile(let path):
                return path
            }
        }

        public var description: String {
            switch self {
            case .linkedByAnother(let path, let owner):
                return
                    "\(path) is a symbolic link made by user \(owner), not by the gateway's user or root: another user could point it anywhere. Remove it and give state_dir (or --state-dir) the real folder"
            case .linkInPlaceOfFile(let path):
                return
                    "\(path) is a symbolic link where the database file should be: remove it (the gateway makes its own)"
            case .ownedByAnother(let path, let owner, let user):
                return
                    "\(path) belongs to user \(owner), not to the gateway's user \(user): someone else made it, and could read or replace what the gateway keeps there. Remove it, or chown it to user \(user) if it is yours"
            case .writableByOthers(let path, let mode):
                return
                    "\(path) can be written by other users (mode \(String(mode, radix: 8))): they could put their own database there. chmod 700 a folder (600 a file), after checking that nobody else put files in it"
            case .notAFile(let path):
                return "\(path) is not a regular file: remove it (the gateway makes its own database files)"
            }
        }
    }

    /// What to do with the folder.
    public enum Decision: Sendable, Equatable {
        /// Use it, after making these paths private (the gateway's own, readable by others).
        case use(tighten: [String])
        case refuse([Problem])
    }

    /// The gateway's user id (`geteuid()`).
    public var user: UInt32

    public init(user: UInt32) {
        self.user = user
    }

    /// Whether a symbolic link at the folder's path may be followed (then its target is judged
    /// with `decide`): only one the gateway's user or root made.
    public func link(_ link: Item) -> Problem? {
        guard link.kind == .symbolicLink else { return nil }
        return link.owner == user || link.owner == 0 ? nil : .linkedByAnother(path: link.path, owner: link.owner)
    }

    /// `folder`: the state folder (links already followed by `link`); `files`: those of the
    /// database files that exist.
    public func decide(folder: Item, files: [Item]) -> Decision {
        var problems: [Problem] = []
        var tighten: [String] = []
        func judge(_ item: Item) {
            if item.owner != user {
                problems.append(.ownedByAnother(path: item.path, owner: item.owner, user: user))
            } else if item.mode & 0o022 != 0 {
                problems.append(.writableByOthers(path: item.path, mode: item.mode))
            } else if item.mode & 0o077 != 0 {
                tighten.append(item.path)
            }
        }
        judge(folder)
        for file in files {
            switch file.kind {
            case .file: judge(file)
            case .symbolicLink: problems.append(.linkInPlaceOfFile(path: file.path))
            case .folder, .other: problems.append(.notAFile(path: file.path))
            }
        }
        return problems.isEmpty ? .use(tighten: tighten) : .refuse(problems)
    }
}

/// The state folder could not be used safely; the gateway does not start (or the command
/// stops) rather than put tokens where another user can reach them.
public struct StateFolderRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [StateFolderCheck.Problem]

    public init(_ problems: [StateFolderCheck.Problem]) {
        self.problems = problems
    }

    public var description: String {
        "the state folder is not safe to use: " + problems.map(\.description).joined(separator: "; ")
    }
}
