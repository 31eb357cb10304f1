import ArgumentParser
import Backends
import Cache
import Foundation
import Model

/// `daygate connect <backend>`: like `gh auth login` — asks what the backend needs (or takes it
/// from flags), talks to the backend and keeps the result in the state directory's vault, so
/// the config only names the account. The flows live in each backend's home
/// (`BackendConnector`); this command knows them through `BackendCatalog`.
struct ConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Log in to a backend once and keep the result in the state directory's vault.",
        discussion: """
            Backends: \(BackendCatalog.connectors.map { "\n  \($0.backend): \($0.summary)" }.joined())

            Answers can be given up front for scripts: --email, --club, --team, --flow, --link, \
            --password-file/--password-stdin, or --answer KEY=VALUE for any question.
            """
    )

    @Argument(help: "The backend (\(BackendCatalog.connectors.map(\.backend).joined(separator: ", "))).")
    var backend: String

    @Option(name: .long, help: "The config file (YAML).")
    var config: String

    @Option(name: .long, help: "The profile to connect.")
    var profile: String = "default"

    @Flag(name: .long, help: "List what is kept for the backend.")
    var list = false

    @Option(
        name: .long, help: "Forget a kept credential (an id from --list), telling the backend where it can hear it.")
    var remove: String?

    @Option(name: .long, help: "E-mail address.") var email: String?
    @Option(name: .long, help: "Kantine Koning: the club (its name or slug).") var club: String?
    @Option(name: .long, help: "Kantine Koning: team codes, separated by commas.") var team: String?
    @Option(name: .long, help: "Kantine Koning: member (without e-mail) or email.") var flow: String?
    @Option(name: .long, help: "A login link (Tickedify) or the link from an enrollment e-mail.") var link: String?
    @Option(name: .customLong("password-file"), help: "Read the password from this file.") var passwordFile: String?
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input.") var passwordStdin = false
    @Option(name: .long, help: "KEY=VALUE: the answer to any question.") var answer: [String] = []

    /// The answers the flags give, by question key.
    func answers() throws -> [String: String] {
        var answers: [String: String] = [:]
        for item in answer {
            guard let equals = item.firstIndex(of: "=") else {
                throw ValidationError("--answer: expected KEY=VALUE")
            }
            answers[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        for (key, value) in [("email", email), ("club", club), ("team", team), ("flow", flow), ("link", link)] {
            if let value { answers[key] = value }
        }
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw ValidationError("--password-file: cannot read \(passwordFile)")
            }
            answers["password"] = text.trimmingCharacters(in: .newlines)
        } else if passwordStdin {
            answers["password"] = (readLine(strippingNewline: true) ?? "")
        }
        return answers
    }

    func run() async throws {
        let given = try answers()
        let action: ConnectRunner.Action = list ? .list : remove.map { ConnectRunner.Action.remove($0) } ?? .connect
        let output = try await ConnectRunner.run(
            backend: backend, configPath: config, profile: profile, action: action,
            prompt: TerminalPrompt(answers: given))
        Console.line(output)
    }
}
