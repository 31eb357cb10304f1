import ArgumentParser
import Backends
import Foundation
import Gateway
import Logging
import Model

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the gateway with a config file."
    )

    @Option(name: .long, help: "The config file (YAML).")
    var config: String

    @Option(name: .long, help: "Listen address HOST:PORT; overrides the file.")
    var listen: String?

    @Option(name: .customLong("state-dir"), help: "Folder of the cache database; overrides the file.")
    var stateDir: String?

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var debug: DebugOptions

    func run() async throws {
        logging.bootstrap()
        let address = try listen.map { listen in
            guard let parsed = ListenAddress(parsing: listen) else {
                throw ValidationError("--listen: expected HOST:PORT such as 127.0.0.1:8787")
            }
            return parsed
        }
        let stateDir = self.stateDir.map {
            ConfigLoader.resolve($0, against: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        }
        let path = config
        // The file as read now and at each SIGHUP, with the command line's overrides.
        let read: @Sendable () throws -> DaygateConfig = {
            var loaded = try ConfigLoader.load(path: path, backends: BackendCatalog.settings)
            if let address { loaded.listen = address }
            if let stateDir { loaded.stateDir = stateDir }
            loaded.routesDir = Self.shipped(loaded.routesDir, named: "routes")
            loaded.staticDir = Self.shipped(loaded.staticDir, named: "static")
            return loaded
        }
        let loaded: DaygateConfig
        do {
            loaded = try read()
        } catch let error as YAMLSourceError {
            throw FailureMessage(text: "config error: \(error)")
        }
        let logger = logging.logger()
        for warning in ConfigFile.permissionWarnings(config) {
            logger.warning("\(warning)")
        }
        let host = loaded.listen.host
        let file = URL(fileURLWithPath: config).standardizedFileURL.path
        try await GatewayRunner(
            config: loaded, logger: logger, configFile: file, reloadConfig: read, stallAfter: debug.stallDuration
        ).run { port in
            Console.line("daygate listening on http://\(host):\(port)/")
        }
    }
}

extension ServeCommand {
    /// `configured` when that folder exists, else the installed one (`ResourceLocator`): a
    /// config in /etc/daygate that names no `routes_dir` gets the routes `make install` put in
    /// PREFIX/share/daygate.
    static func shipped(_ configured: String, named name: String) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: configured, isDirectory: &isDirectory), isDirectory.boolValue {
            return configured
        }
        return ResourceLocator.directory(named: name) ?? configured
    }
}

/// Loads the config or exits with the problem (file, line, key, reason).
enum ConfigFile {
    static func load(_ path: String) throws -> DaygateConfig {
        do {
            return try ConfigLoader.load(path: path, backends: BackendCatalog.settings)
        } catch let error as YAMLSourceError {
            throw FailureMessage(text: "config error: \(error)")
        }
    }
}

extension ConfigFile {
    /// The config holds (or points at) every secret of the household: it should be readable by
    /// its owner only.
    static func permissionWarnings(_ path: String) -> [String] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0
        else { return [] }
        return [
            "\(path) can be read by other users (mode \(String(mode & 0o777, radix: 8))) and holds secrets: chmod 600 \(path)"
        ]
    }
}

/// A failure shown as is (ArgumentParser prints it to stderr and exits 1).
struct FailureMessage: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
}
