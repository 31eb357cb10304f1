import Backends
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `ConnectPrompt` for the CLI: answers given by flags first; otherwise, on a terminal, the
/// question is asked (a secret with echo turned off); without a terminal a missing answer is an
/// error naming the flag.
struct TerminalPrompt: ConnectPrompt {
    let answers: [String: String]
    let interactive: Bool
    let write: @Sendable (String) -> Void

    init(
        answers: [String: String], interactive: Bool = isatty(STDIN_FILENO) == 1,
        write: @escaping @Sendable (String) -> Void = { Console.line($0) }
    ) {
        self.answers = answers
        self.interactive = interactive
        self.write = write
    }

    func hasAnswer(_ key: String) -> Bool { answers[key] != nil }

    func say(_ line: String) { write(line) }

    func missing(_ key: String) -> ConnectError {
        if key == "password" {
            return ConnectError("not on a terminal: give the password with --password-file FILE (- for standard input)")
        }
        if key == "link" {
            return ConnectError("not on a terminal: give the link with --link-file FILE (- for standard input)")
        }
        return ConnectError("not on a terminal: give the answer with --\(key) (or --answer \(key)=…)")
    }

    func ask(_ key: String, _ question: String, suggestion: String?) throws -> String {
        if let answer = answers[key] { return answer }
        guard interactive else {
            if let suggestion { return suggestion }
            throw missing(key)
        }
        FileHandle.standardOutput.write(Data("\(question)\(suggestion.map { " [\($0)]" } ?? ""): ".utf8))
        guard let line = readLine() else { throw ConnectError("no answer (end of input)") }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? (suggestion ?? "") : trimmed
    }

    func askSecret(_ key: String, _ question: String) throws -> String {
        if let answer = answers[key] { return answer }
        guard interactive else { throw missing(key) }
        FileHandle.standardOutput.write(Data("\(question) (not shown): ".utf8))
        let line = Self.withoutEcho { readLine() }
        FileHandle.standardOutput.write(Data("\n".utf8))
        guard let line, !line.isEmpty else { throw ConnectError("no answer") }
        return line
    }

    func choose(_ key: String, _ question: String, choices: [ConnectChoice], multiple: Bool) throws -> [Int] {
        if let answer = answers[key] {
            guard let picked = ConnectChoice.pick(answer, from: choices), !picked.isEmpty else {
                throw ConnectError(
                    "--\(key) \(answer): expected one of \(choices.map(\.key).joined(separator: ", "))")
            }
            return multiple ? picked : [picked[0]]
        }
        guard interactive else { throw missing(key) }
        write(question)
        for (index, choice) in choices.enumerated() {
            write("  \(index + 1). \(choice.label)")
        }
        while true {
            let line = try ask(key, multiple ? "Numbers, separated by commas" : "Number")
            if let picked = ConnectChoice.pick(line, from: choices), !picked.isEmpty {
                return multiple ? picked : [picked[0]]
            }
            write("Please answer with a number from 1 to \(choices.count).")
        }
    }

    /// Runs `body` with the terminal's echo off (and back on afterwards).
    static func withoutEcho<T>(_ body: () -> T) -> T {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return body() }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        return body()
    }
}
