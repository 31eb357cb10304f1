import Aggregation
import ArgumentParser
import Foundation
import Model

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Validate a config file and the route files it names; exit 1 with the reasons."
    )

    @Option(name: .long, help: "The config file (YAML).")
    var config: String

    func run() throws {
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
    }
}
