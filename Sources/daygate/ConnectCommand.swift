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

            Answers can be given up front for scripts: --email, --club, --team, --flow, \
            --password-file, --link-file, --answer-file KEY=FILE, or --answer KEY=VALUE for any \
            question. A FILE may be - (standard input) or a pipe such as <(pass show tickedify). \
            Secrets given as --link or --answer password=… are visible to other users of this \
            machine (ps) while the command runs.
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
    @Option(
        name: .long,
        help: "A login link (Tickedify) or the link from an enrollment e-mail (visible in ps: prefer --link-file).")
    var link: String?
    @Option(name: .customLong("link-file"), help: "Read the login link from this file (- for standard input).")
    var linkFile: String?
    @Option(
        name: .customLong("password-file"),
        help: "Read the password from this file (- for standard input; <(command) works).")
    var passwordFile: String?
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input.") var passwordStdin = false
    @Option(
        name: .long,
        help: "KEY=VALUE: the answer to any question (visible in ps: give secrets with --answer-file).")
    var answer: [String] = []
    @Option(
        name: .customLong("answer-file"),
        help: "KEY=FILE: the answer to a question, read from FILE (- for standard input)."
    )
    var answerFile: [String] = []

    /// Questions whose answers are secrets (`askSecret`).
    static let secretKeys: Set<String> = ["password", "link"]

    /// The answers the flags give, by question key; a secret given on the command line is
    /// taken with a warning (`warn`).
    func answers(
        standardInput: Int32 = STDIN_FILENO, warn: (String) -> Void = SecretInput.warn
    ) throws -> [String: String] {
        var answers: [String: String] = [:]
        for item in answer {
            guard let equals = item.firstIndex(of: "=") else {
                throw ValidationError("--answer: expected KEY=VALUE")
            }
            let key = String(item[..<equals])
            if Self.secretKeys.contains(key) {
                warn(SecretInput.visibleWarning("--answer \(key)=…", instead: "--answer-file \(key)="))
            }
            answers[key] = String(item[item.index(after: equals)...])
        }
        for (key, value) in [("email", email), ("club", club), ("team", team), ("flow", flow), ("link", link)] {
            if let value { answers[key] = value }
        }
        if link != nil { warn(SecretInput.visibleWarning("--link", instead: "--link-file")) }

        var files: [(key: String, flag: String, source: String)] = []
        for item in answerFile {
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                throw ValidationError("--answer-file: expected KEY=FILE")
            }
            files.append((String(item[..<equals]), "--answer-file", String(item[item.index(after: equals)...])))
        }
        if let linkFile { files.append(("link", "--link-file", linkFile)) }
        if let passwordFile { files.append(("password", "--password-file", passwordFile)) }
        if passwordStdin { files.append(("password", "--password-stdin", "-")) }
        guard files.filter({ $0.source == "-" }).count <= 1 else {
            throw ValidationError("standard input (-) can give only one answer")
        }
        for file in files {
            answers[file.key] = try SecretInput.contents(of: file.source, flag: file.flag, standardInput: standardInput)
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
