import ArgumentParser
import Foundation
import Logging
import Model
import ServiceLifecycle
import Simulators

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the backend simulators on fixed loopback ports and write a config for `daygate serve`."
    )

    @Option(
        name: .customLong("port-base"),
        help: ArgumentHelp(
            "First port; simulators use N, N+1, … in the order of the simulator catalog: \(Self.portList).")
    )
    var portBase: Int = 9100

    /// "N (tickedify), N+1 (eightalls), …", from ``SimulatorCatalog``.
    static var portList: String {
        SimulatorCatalog.all.enumerated().map { "N\($0.offset == 0 ? "" : "+\($0.offset)") (\($0.element.kind))" }
            .joined(separator: ", ")
    }

    @Option(name: .customLong("write-config"), help: "Write a ready config for `daygate serve` here.")
    var writeConfig: String?

    @Option(name: .customLong("state-dir"), help: "state_dir to put in the written config.")
    var stateDir: String = "state"

    @OptionGroup var timeZone: TimeZoneOption

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let zone = try timeZone.zone()
        let highest = 65535 - (SimulatorCatalog.all.count - 1)
        guard (1024...highest).contains(portBase) else { throw ValidationError("--port-base: 1024 to \(highest)") }
        let simulators = try await DemoSimulators.start(timeZone: zone, portBase: portBase)
        for simulator in simulators.running {
            Console.line("\(simulator.kind.rawValue) simulator on \(simulator.baseURL)")
        }
        if let writeConfig {
            let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            let yaml = simulators.configYAML(
                timeZone: zone, stateDir: ConfigLoader.resolve(stateDir, against: cwd),
                routesDir: ResourceLocator.directory(named: "routes"),
                staticDir: ResourceLocator.directory(named: "static")
            )
            do {
                // It holds the simulators' credentials: owner-only from its first byte, like
                // every file with secrets.
                try PrivateFile.write(Data(yaml.utf8), to: writeConfig, replacing: true)
            } catch {
                await simulators.stop()
                throw FailureMessage(text: "cannot write \(writeConfig): \(error)")
            }
            Console.line("config written to \(writeConfig); run: daygate serve --config \(writeConfig)")
        }
        Console.line("Ctrl-C stops the simulators.")
        let group = ServiceGroup(
            configuration: .init(
                services: [simulators], gracefulShutdownSignals: [.sigterm, .sigint], logger: logging.logger()
            ))
        try await group.run()
    }
}
