import Aggregation
import ArgumentParser
import Backends
import Cache
import Foundation
import Logging
import Model

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Validate a config file and the route files it names, and whether each backend's credentials work; exit 1 with the reasons."
    )

    @Option(name: .long, help: "The config file (YAML).")
    var config: String

    @Flag(name: .long, help: "Only validate the files; do not call the backends.")
    var offline = false

    func run() async throws {
        let loaded = try ConfigFile.load(config)
        let routes: [Route]
        do {
            routes = try RouteLoader().load(directory: loaded.routesDir)
        } catch let error as RouteLoadError {
            throw FailureMessage(text: "route errors:\n\(error)")
        }
        Console.line("config ok: \(config)")
        Console.line("  listen \(loaded.listen), timezone \(loaded.timezone), state \(loaded.stateDir)")
        for (name, profile) in loaded.profiles.sorted(by: { $0.key < $1.key }) {
            Console.line("  profile \(name): \(profile.configuredBackends.joined(separator: ", "))")
        }
        Console.line("routes ok: \(loaded.routesDir)")
        for route in routes.sorted(by: { $0.path < $1.path }) {
            Console.line(
                "  GET \(route.path) — \(route.sections.map { "\($0.name) ← \($0.operation.name)" }.joined(separator: ", "))"
            )
        }
        guard !offline else { return }
        let report = try await CredentialChecks.run(loaded)
        Console.line("credentials:")
        for line in report.lines { Console.line("  " + line) }
        if report.failed > 0 {
            throw FailureMessage(
                text:
                    "\(report.failed) credential check\(report.failed == 1 ? "" : "s") failed (`daygate connect <backend>` logs in again)"
            )
        }
    }
}
