import Backends
import Foundation
import Model

/// The repository's `daygate.example.yaml`, loaded as a config file with made-up secrets: each
/// `${file:…}` it names replaced by a value of the right shape, each `${VAR}` given one.
enum ExampleConfig {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    static var text: String {
        get throws { try String(contentsOf: root.appendingPathComponent("daygate.example.yaml"), encoding: .utf8) }
    }

    static func load() throws -> DaygateConfig {
        let text =
            try text
            .replacing(
                "${file:/etc/daygate/work-calendar.url}", with: "https://calendar.example/private-0123/basic.ics"
            )
            .replacing("${file:/etc/daygate/anna-phone.key}", with: "anna-phone-key-0123456789")
            .replacing("${file:/etc/daygate/anna-phone.feed-key}", with: "anna-phone-feed-key-0123456789")
            .replacing(#/\$\{file:[^}]*\}/#, with: "a-secret-from-a-file-0123456789")
        var environment: [String: String] = [:]
        for match in text.matches(of: #/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/#) {
            environment[String(match.output.1)] = "\(match.output.1.lowercased())-0123456789"
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-example-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("daygate.yaml").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try ConfigLoader.load(path: file, environment: environment, backends: BackendCatalog.settings)
    }
}
