import Foundation
import Testing

@testable import daygate

/// Where the binary finds `routes/` and `static/`: the working directory, then next to the
/// executable and above it, and where `make install` puts them (`PREFIX/share/daygate`).
struct ResourceLocatorTests {
    /// `PREFIX/bin/daygate` and `PREFIX/share/daygate/routes` in a fresh folder.
    static func installed() throws -> (root: URL, executable: URL, routes: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-locator-\(UUID().uuidString)")
        let bin = root.appendingPathComponent("usr/local/bin")
        let routes = root.appendingPathComponent("usr/local/share/daygate/routes")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: routes, withIntermediateDirectories: true)
        let executable = bin.appendingPathComponent("daygate")
        try Data().write(to: executable)
        return (root, executable, routes)
    }

    @Test func anInstalledBinaryFindsPrefixShareDaygate() throws {
        let (root, executable, routes) = try Self.installed()
        defer { try? FileManager.default.removeItem(at: root) }
        let empty = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let found = ResourceLocator.directory(named: "routes", workingDirectory: empty.path, executable: executable)
        #expect(found == routes.standardizedFileURL.path)
        #expect(
            ResourceLocator.directory(named: "static", workingDirectory: empty.path, executable: executable) == nil)
    }

    @Test func theWorkingDirectoryComesFirst() throws {
        let (root, executable, _) = try Self.installed()
        defer { try? FileManager.default.removeItem(at: root) }
        let here = root.appendingPathComponent("checkout")
        try FileManager.default.createDirectory(
            at: here.appendingPathComponent("routes"), withIntermediateDirectories: true)
        let found = ResourceLocator.directory(named: "routes", workingDirectory: here.path, executable: executable)
        #expect(found == here.appendingPathComponent("routes").standardizedFileURL.path)
    }
}
