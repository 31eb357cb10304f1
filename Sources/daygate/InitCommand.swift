import ArgumentParser
import Backends
import Foundation
import Model

/// `daygate init`: a commented starter config for this machine — the machine's timezone, a
/// generated client key when the gateway should listen beyond loopback, the sections of the
/// backends the person picks — written 0600 (a config can hold secrets), never over an existing
/// file without `--force`; then the next commands to run.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Write a commented starter config for this machine."
    )

    @Option(name: .long, help: "Where to write the config.")
    var config: String = "daygate.yaml"

    @Option(
        name: .long, parsing: .upToNextOption,
        help:
            "Backends to configure (\(BackendCatalog.connectors.map(\.backend).joined(separator: ", "))); asked when left out on a terminal."
    )
    var backend: [String] = []

    @Option(name: .long, help: "Listen address HOST:PORT (anything but loopback gets a client key).")
    var listen: String?

    @Option(name: .long, help: "E-mail address the accounts use (asked on a terminal).")
    var email: String?

    @OptionGroup var timeZone: TimeZoneOption

    @Flag(name: .long, help: "Overwrite an existing file.")
    var force = false

    func run() throws {
        let prompt = TerminalPrompt(answers: [:])
        var picked = backend
        if picked.isEmpty, prompt.interactive {
            let choices = BackendCatalog.connectors.map {
                ConnectChoice(key: $0.backend, label: "\($0.backend): \($0.summary)")
            }
            picked = try prompt.choose(
                "backend", "Which backends does the household use?", choices: choices, multiple: true
            )
            .map { choices[$0].key }
        }
        var address = listen
        if address == nil, prompt.interactive {
            address = try prompt.ask(
                "listen", "Listen address (0.0.0.0:8787 to serve other devices)", suggestion: "127.0.0.1:8787")
        }
        var account = email
        if account == nil, prompt.interactive, !picked.isEmpty {
            account = try prompt.ask("email", "E-mail address of the accounts", suggestion: "you@example.org")
        }
        let plan = try InitPlan(
            backends: picked, listen: address ?? "127.0.0.1:8787", email: account ?? "you@example.org",
            timeZone: try timeZone.zone())
        let path = URL(fileURLWithPath: config).standardizedFileURL.path
        try plan.write(to: path, force: force)
        Console.line(plan.nextSteps(configPath: config))
    }
}
