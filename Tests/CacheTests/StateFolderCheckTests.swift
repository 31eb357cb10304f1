import Foundation
import Testing

@testable import Cache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The decision alone: which folders and database files the gateway may use.
@Suite("State folder check")
struct StateFolderCheckTests {
    static let user: UInt32 = 1000
    static let other: UInt32 = 1001
    let check = StateFolderCheck(user: Self.user)

    func folder(owner: UInt32 = Self.user, mode: UInt32 = 0o700) -> StateFolderCheck.Item {
        .init(path: "/s", kind: .folder, owner: owner, mode: mode)
    }

    func file(
        _ name: String = "cache.sqlite", kind: StateFolderCheck.Item.Kind = .file, owner: UInt32 = Self.user,
        mode: UInt32 = 0o600
    )
        -> StateFolderCheck.Item
    {
        .init(path: "/s/\(name)", kind: kind, owner: owner, mode: mode)
    }

    @Test func theGatewaysOwnPrivateFolderAndFilesAreUsed() {
        #expect(check.decide(folder: folder(), files: []) == .use(tighten: []))
        #expect(
            check.decide(folder: folder(), files: [file(), file("cache.sqlite-wal"), file("cache.sqlite-shm")])
                == .use(tighten: []))
    }

    @Test func rootsOwnFolderIsFineForRoot() {
        let root = StateFolderCheck(user: 0)
        #expect(
            root.decide(folder: .init(path: "/s", kind: .folder, owner: 0, mode: 0o700), files: [])
                == .use(tighten: []))
        // Root uses no other user's folder either.
        #expect(
            root.decide(folder: folder(), files: [])
                == .refuse([.ownedByAnother(path: "/s", owner: Self.user, user: 0)]))
    }

    @Test func anotherUsersFolderOrDatabaseIsRefused() {
        #expect(
            check.decide(folder: folder(owner: Self.other), files: [])
                == .refuse([.ownedByAnother(path: "/s", owner: Self.other, user: Self.user)]))
        #expect(
            check.decide(folder: folder(), files: [file("cache.sqlite-wal", owner: Self.other)])
                == .refuse([.ownedByAnother(path: "/s/cache.sqlite-wal", owner: Self.other, user: Self.user)]))
    }

    @Test func aFolderOrFileOthersCanWriteIsRefused() {
        #expect(
            check.decide(folder: folder(mode: 0o777), files: [])
                == .refuse([.writableByOthers(path: "/s", mode: 0o777)]))
        #expect(
            check.decide(folder: folder(mode: 0o770), files: [])
                == .refuse([.writableByOthers(path: "/s", mode: 0o770)]))
        #expect(
            check.decide(folder: folder(mode: 0o1777), files: [])
                == .refuse([.writableByOthers(path: "/s", mode: 0o1777)]))
        #expect(
            check.decide(folder: folder(), files: [file(mode: 0o666)])
                == .refuse([.writableByOthers(path: "/s/cache.sqlite", mode: 0o666)]))
    }

    @Test func theGatewaysOwnReadableFolderAndFilesAreMadePrivate() {
        #expect(
            check.decide(folder: folder(mode: 0o755), files: [file(mode: 0o644), file("cache.sqlite-shm")])
                == .use(tighten: ["/s", "/s/cache.sqlite"]))
    }

    @Test func linksInPlaceOfFilesAndOddFilesAreRefused() {
        #expect(
            check.decide(folder: folder(), files: [file(kind: .symbolicLink)])
                == .refuse([.linkInPlaceOfFile(path: "/s/cache.sqlite")]))
        #expect(
            check.decide(folder: folder(), files: [file(kind: .other)]) == .refuse([.notAFile(path: "/s/cache.sqlite")])
        )
    }

    @Test func aLinkAtTheFoldersPathIsFollowedOnlyWhenTheGatewaysUserOrRootMadeIt() {
        func link(_ owner: UInt32) -> StateFolderCheck.Item {
            .init(path: "/s", kind: .symbolicLink, owner: owner, mode: 0o777)
        }
        #expect(check.link(link(Self.user)) == nil)
        #expect(check.link(link(0)) == nil)
        #expect(check.link(link(Self.other)) == .linkedByAnother(path: "/s", owner: Self.other))
    }

    @Test func everyMessageNamesThePathWhatIsWrongAndAFix() {
        let problems: [StateFolderCheck.Problem] = [
            .linkedByAnother(path: "/s", owner: 7), .linkInPlaceOfFile(path: "/s"),
            .ownedByAnother(path: "/s", owner: 7, user: 8), .writableByOthers(path: "/s", mode: 0o777),
            .notAFile(path: "/s"),
        ]
        for problem in problems {
            #expect(problem.description.hasPrefix("/s "))
            #expect(
                problem.description.lowercased().contains("remove") || problem.description.contains("chmod"),
                "\(problem)")
        }
        #expect(StateFolderCheck.Problem.writableByOthers(path: "/s", mode: 0o777).description.contains("mode 777"))
    }
}

/// The same on disk, as root (the tests run as root): real folders, modes, links and a file of
/// another user made with `chown`.
@Suite("State folder on disk")
struct StateFolderOnDiskTests {
    static let stranger: uid_t = geteuid() == 4242 ? 4243 : 4242

    static func withFolder(_ body: (String) throws -> Void) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-statecheck-\(UUID())").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        try body(base)
    }

    static func refusal(_ folder: String) -> StateFolderRefusal? {
        do {
            _ = try CacheDatabase(stateDirectory: folder)
            return nil
        } catch let refusal as StateFolderRefusal {
            return refusal
        } catch {
            Issue.record("another error: \(error)")
            return nil
        }
    }

    static func mode(_ path: String) -> UInt32 {
        var status = stat()
        _ = lstat(path, &status)
        return UInt32(status.st_mode) & 0o777
    }

    @Test func aNewFolderIsMade0700AndItsDatabase0600() throws {
        try Self.withFolder { base in
            let state = base + "/state"
            let database = try CacheDatabase(stateDirectory: state)
            #expect(Self.mode(state) == 0o700)
            #expect(Self.mode(database.path) == 0o600)
            // Opened again (the -wal and -shm files now there too), it is still accepted.
            _ = try CacheDatabase(stateDirectory: state)
        }
    }

    @Test func aWorldWritableFolderWithAPlantedDatabaseIsRefused() throws {
        try Self.withFolder { base in
            let state = base + "/state"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            chmod(state, 0o777)
            #expect(FileManager.default.createFile(atPath: state + "/cache.sqlite", contents: nil))
            let refusal = try #require(Self.refusal(state))
            #expect(refusal.problems == [.writableByOthers(path: state, mode: 0o777)])
            #expect(refusal.description.contains(state))
            // And it is not stood in for either: the gateway does not start.
            #expect(throws: StateFolderRefusal.self) { try CacheDatabase.openingOrStandingIn(stateDirectory: state) }
        }
    }

    @Test func aDatabaseOrWALFileOfAnotherUserIsRefused() throws {
        for name in StateFolder.databaseFiles {
            try Self.withFolder { base in
                let state = base + "/state"
                try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
                chmod(state, 0o700)
                let planted = state + "/" + name
                #expect(FileManager.default.createFile(atPath: planted, contents: nil))
                chmod(planted, 0o600)
                #expect(chown(planted, Self.stranger, gid_t(Self.stranger)) == 0, "the tests run as root")
                let refusal = try #require(Self.refusal(state))
                #expect(
                    refusal.problems == [
                        .ownedByAnother(path: planted, owner: UInt32(Self.stranger), user: UInt32(geteuid()))
                    ])
            }
        }
    }

    @Test func aFolderOfAnotherUserIsRefused() throws {
        try Self.withFolder { base in
            let state = base + "/state"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            chmod(state, 0o700)
            #expect(chown(state, Self.stranger, gid_t(Self.stranger)) == 0, "the tests run as root")
            let refusal = try #require(Self.refusal(state))
            #expect(
                refusal.problems == [
                    .ownedByAnother(path: state, owner: UInt32(Self.stranger), user: UInt32(geteuid()))
                ])
        }
    }

    @Test func aLinkMadeByAnotherUserIsRefusedAndOneOfOurOwnIsFollowedOnce() throws {
        try Self.withFolder { base in
            let target = base + "/real"
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
            chmod(target, 0o700)
            let link = base + "/state"
            #expect(symlink(target, link) == 0)
            #expect(lchown(link, Self.stranger, gid_t(Self.stranger)) == 0, "the tests run as root")
            let refusal = try #require(Self.refusal(link))
            #expect(refusal.problems == [.linkedByAnother(path: link, owner: UInt32(Self.stranger))])
            #expect(!FileManager.default.fileExists(atPath: target + "/cache.sqlite"), "nothing was made through it")

            // The gateway's own link (as systemd's DynamicUser= makes): the database is opened in
            // the target, by its real path.
            #expect(lchown(link, geteuid(), getegid()) == 0)
            let database = try CacheDatabase(stateDirectory: link)
            #expect(database.path == target + "/cache.sqlite")
        }
    }

    @Test func aLinkInPlaceOfTheDatabaseIsRefused() throws {
        try Self.withFolder { base in
            let state = base + "/state"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            chmod(state, 0o700)
            #expect(symlink(base + "/elsewhere.sqlite", state + "/cache.sqlite") == 0)
            let refusal = try #require(Self.refusal(state))
            #expect(refusal.problems == [.linkInPlaceOfFile(path: state + "/cache.sqlite")])
        }
    }

    @Test func theGatewaysOwnReadableFolderAndDatabaseAreMadePrivate() throws {
        try Self.withFolder { base in
            let state = base + "/state"
            let first = try CacheDatabase(stateDirectory: state)
            chmod(state, 0o755)
            chmod(first.path, 0o644)
            _ = try CacheDatabase(stateDirectory: state)
            #expect(Self.mode(state) == 0o700)
            #expect(Self.mode(first.path) == 0o600)
        }
    }

    @Test func theStandInIsANewPrivateFolderNotAPredictableOne() throws {
        try Self.withFolder { base in
            // A file where the folder should be: it cannot be made, so a stand-in serves.
            let blocked = base + "/state"
            #expect(FileManager.default.createFile(atPath: blocked, contents: Data("x".utf8)))
            // What another user could have made in advance under the old, predictable name.
            let predictable = FileManager.default.temporaryDirectory
                .appendingPathComponent("daygate-state-\(ProcessInfo.processInfo.processIdentifier)").path
            let plantedBefore = FileManager.default.fileExists(atPath: predictable)
            let first = try CacheDatabase.openingOrStandingIn(stateDirectory: blocked)
            let second = try CacheDatabase.openingOrStandingIn(stateDirectory: blocked)
            let firstFolder = (first.path as NSString).deletingLastPathComponent
            let secondFolder = (second.path as NSString).deletingLastPathComponent
            defer {
                try? FileManager.default.removeItem(atPath: firstFolder)
                try? FileManager.default.removeItem(atPath: secondFolder)
            }
            #expect(firstFolder != secondFolder, "each stand-in is a new folder")
            #expect(firstFolder != predictable && secondFolder != predictable)
            #expect(FileManager.default.fileExists(atPath: predictable) == plantedBefore)
            #expect(Self.mode(firstFolder) == 0o700)
            #expect(Self.mode(first.path) == 0o600)
        }
    }
}
