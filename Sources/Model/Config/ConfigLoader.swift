import Foundation

/// Reads `daygate.yaml`: substitution, decoding, validation, and relative paths made absolute
/// against the config file's folder.
public enum ConfigLoader {
    /// `backends`: the backend sections profiles may hold (the backends' registration list).
    public static func load(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        backends: BackendSettingsCatalog
    ) throws -> DaygateConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw YAMLSourceError(file: path, line: nil, keyPath: "", reason: "cannot read the config file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw YAMLSourceError(file: path, line: nil, keyPath: "", reason: "the config file is not UTF-8")
        }
        var config = try YAMLDocument(file: path, environment: environment, backends: backends).decode(
            DaygateConfig.self, from: text)
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        config.stateDir = resolve(config.stateDir, against: base)
        config.routesDir = resolve(config.routesDir, against: base)
        config.staticDir = resolve(config.staticDir, against: base)
        return config
    }

    public static func resolve(_ path: String, against base: URL) -> String {
        if path.hasPrefix("/") { return path }
        return base.appendingPathComponent(path).standardizedFileURL.path
    }
}
