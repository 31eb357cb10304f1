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

    func run() async throws {
        logging.bootstrap()
        var loaded = try ConfigFile.load(config)
        if let listen {
            guard let address = ListenAddress(parsing: listen) else {
                throw ValidationError("--listen: expected HOST:PORT such as 127.0.0.1:8787")
            }
            loaded.listen = address
        }
        if let stateDir {
            loaded.stateDir = ConfigLoader.resolve(
                stateDir, against: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        }
        let logger = logging.logger()
        for warning in ConfigFile.permissionWarnings(config) {
            logger.warning("\(warning)")
        }
        let host = loaded.listen.host
        try await GatewayRunner(config: loaded, logger: logger).run { port in
            Console.line("daygate listening on http://\(host):\(port)/")
        }
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
