import ArgumentParser
import Foundation
import Logging
import Model

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the simulators with a seeded day and the gateway against them (the default command)."
    )

    @Option(name: .long, help: "Gateway port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 8787

    @Option(name: .customLong("state-dir"), help: "Folder of the demo's cache database.")
    var stateDir: String = ".daygate-demo"

    @Option(
        name: .customLong("sim-port-base"),
        help: "First simulator port (8alls is N+1, as in `daygate simulate`); 0 picks free ports.")
    var simPortBase: Int = 9100

    @Option(
        name: .customLong("client-key"),
        help:
            "Require this API key (Authorization: Bearer <key>, at least 16 characters); the dashboard asks for it once. Visible to other users in ps: prefer --client-key-file."
    )
    var clientKey: String?

    @Option(
        name: .customLong("client-key-file"),
        help: "Require the API key in this file (- for standard input; <(command) works).")
    var clientKeyFile: String?

    @Option(
        name: .customLong("client-scopes"),
        help: "What the client key may do, comma-separated: read, write, household (default: all three)."
    )
    var clientScopes: String?

    /// The scopes of `--client-scopes`, checked.
    func scopes() throws -> Set<ClientScope> {
        guard let clientScopes else { return ClientScope.all }
        var scopes = Set<ClientScope>()
        for name in clientScopes.split(separator: ",") {
            let word = name.trimmingCharacters(in: .whitespaces)
            guard let scope = ClientScope(rawValue: word) else {
                throw ValidationError(
                    "--client-scopes: \(word) is not a scope (read, write, household)")
            }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { throw ValidationError("--client-scopes: name at least one") }
        return scopes
    }

    /// The client key from `--client-key-file` or (with a warning) `--client-key`, checked.
    func requiredKey(standardInput: Int32 = STDIN_FILENO, warn: (String) -> Void = SecretInput.warn) throws
        -> String?
    {
        var key = clientKey
        if let clientKeyFile {
            guard clientKey == nil else { throw ValidationError("--client-key and --client-key-file: give one") }
            key = try SecretInput.contents(of: clientKeyFile, flag: "--client-key-file", standardInput: standardInput)
        } else if clientKey != nil {
            warn(SecretInput.visibleWarning("--client-key", instead: "--client-key-file"))
        }
        if let key, key.count < ClientConfig.minimumKeyLength || key.contains(where: \.isWhitespace) {
            throw ValidationError(
                "\(clientKeyFile == nil ? "--client-key" : "--client-key-file"): at least \(ClientConfig.minimumKeyLength) characters, no spaces"
            )
        }
        return key
    }

    @OptionGroup var timeZone: TimeZoneOption

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var debug: DebugOptions

    func run() async throws {
        logging.bootstrap()
        let zone = try timeZone.zone()
        guard (0...65535).contains(port) else { throw ValidationError("--port: 0 to 65535") }
        guard simPortBase == 0 || (1024...65530).contains(simPortBase) else {
            throw ValidationError("--sim-port-base: 0, or 1024 to 65530")
        }
        let clientKey = try requiredKey()
        let clientScopes = try scopes()
        if self.clientScopes != nil, clientKey == nil {
            throw ValidationError("--client-scopes: give --client-key or --client-key-file too")
        }
        guard let routesDir = ResourceLocator.directory(named: "routes") else {
            throw FailureMessage(text: "cannot find the routes/ folder; run the demo from the daygate checkout")
        }
        let staticDir = ResourceLocator.directory(named: "static") ?? "static"
        let simulators = try await DemoSimulators.start(timeZone: zone, portBase: simPortBase == 0 ? nil : simPortBase)
        let config = DaygateConfig(
            listen: ListenAddress(host: "127.0.0.1", port: port),
            stateDir: ConfigLoader.resolve(
                stateDir, against: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)),
            timezone: zone.identifier, routesDir: routesDir, staticDir: staticDir,
            profiles: simulators.household.profiles,
            clients: clientKey.map {
                [ClientConfig(name: "demo", key: $0, profile: "default", scopes: clientScopes)]
            }
                ?? [],
            household: simulators.household.household
        )
        do {
            try await GatewayRunner(
                config: config, logger: logging.logger(), extraServices: [simulators], upstreamInProcess: true,
                stallAfter: debug.stallDuration
            ).run { port in
                let base = "http://127.0.0.1:\(port)"
                // Simulator names in one column, however long the longest.
                let width = max(13, (simulators.running.map(\.kind.rawValue.count).max() ?? 0) + 1)
                Console.line(
                    """
                    daygate demo — timezone \(zone.identifier), cache in \(config.stateDir)
                      dashboard   \(base)/
                      the day     curl \(base)/v1/today
                      events      curl \(base)/v1/events
                      household   \(base)/wall  ·  curl \(base)/v1/household/today
                      health      curl \(base)/readyz\(clientKey == nil ? "" : "\n  API key     required: curl -H 'Authorization: Bearer <key>' …")
                    simulators (faults: POST /_sim/faults, stats: GET /_sim/stats):
                    \(simulators.running.map { "  \($0.kind.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)) \($0.baseURL)" }.joined(separator: "\n"))
                    Ctrl-C stops it.
                    """)
            }
        } catch {
            await simulators.stop()
            throw error
        }
    }
}
