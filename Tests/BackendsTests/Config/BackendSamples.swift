import Backends
import Foundation
import Model

/// Every backend of the catalog configured with its own sample section (`BackendSettings.sample`):
/// the suites that cover every backend build their config from it, so a new backend is covered
/// by them without editing them.
enum BackendSamples {
    /// A config with one client key and a `default` profile holding every backend's sample.
    static var config: String {
        var text = """
            clients:
              - name: phone
                key: client-key-0123456789
                profile: default
            profiles:
              default:

            """
        for type in BackendCatalog.settings.types {
            text += "    \(type.backend):\n"
            for line in type.sample.yaml.split(separator: "\n", omittingEmptySubsequences: false) {
                text += "      " + line + "\n"
            }
        }
        return text
    }

    /// Every secret value of every sample.
    static var secrets: [String] { BackendCatalog.settings.types.flatMap { $0.sample.secrets } }

    /// `text` loaded as a config file.
    static func load(_ text: String) throws -> DaygateConfig {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-settings-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("daygate.yaml").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try ConfigLoader.load(path: file, backends: BackendCatalog.settings)
    }
}
