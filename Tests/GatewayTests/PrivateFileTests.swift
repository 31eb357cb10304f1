import Foundation
import Testing

@testable import daygate

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `daygate init` and `simulate --write-config` write a file with secrets (a new client key,
/// the simulators' passwords): at no step may another user read it. The old write made it
/// 0644 and changed the mode once it was in place.
@Suite("Files with secrets are private from their first byte")
struct PrivateFileTests {
    static func mode(_ path: String) -> UInt32 {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0o7777 }
        return UInt32(status.st_mode) & 0o777
    }

    static func inFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-private-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    @Test("init: the temporary file and the config are 0600 at every step")
    func initIsPrivateAtEveryStep() throws {
        try Self.inFolder { folder in
            let path = folder + "/daygate.yaml"
            let plan = try InitPlan(backends: [], listen: "0.0.0.0:8787", email: "a@example.org", timeZone: .current)
            let key = try #require(plan.clientKey)
            var seen: [(PrivateFile.Step, String, UInt32)] = []
            try plan.write(to: path, force: false) { step, file in seen.append((step, file, Self.mode(file))) }
            #expect(seen.map(\.0) == [.created, .inPlace])
            for (step, file, mode) in seen {
                #expect(mode == 0o600, "\(step) \(file): mode \(String(mode, radix: 8))")
            }
            #expect(seen.first?.1 != path, "written beside the final path first")
            #expect(Self.mode(path) == 0o600)
            #expect(try String(contentsOfFile: path, encoding: .utf8).contains(key))
            // Only the config is left in the folder.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["daygate.yaml"])

            // --force replaces it, private at every step too.
            seen = []
            try plan.write(to: path, force: true) { step, file in seen.append((step, file, Self.mode(file))) }
            #expect(seen.count == 2 && seen.allSatisfy { $0.2 == 0o600 })
        }
    }

    @Test("not over an existing file: the check and the write are one step")
    func noOverwrite() throws {
        try Self.inFolder { folder in
            let path = folder + "/daygate.yaml"
            try "mine".write(toFile: path, atomically: false, encoding: .utf8)
            #expect(throws: PrivateFile.Exists.self) {
                try PrivateFile.write(Data("new".utf8), to: path, replacing: false)
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "mine")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["daygate.yaml"])
        }
    }

    @Test("a link at the final path is replaced, not written through")
    func linkNotFollowed() throws {
        try Self.inFolder { folder in
            let target = folder + "/elsewhere"
            try "other".write(toFile: target, atomically: false, encoding: .utf8)
            let path = folder + "/daygate.yaml"
            #expect(symlink(target, path) == 0)
            try PrivateFile.write(Data("secret".utf8), to: path, replacing: true)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "other")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "secret")
            #expect(Self.mode(path) == 0o600)
        }
    }
}
