import Backends
import Synchronization

/// A `ConnectPrompt` for tests: every answer given up front, what the flow says recorded; a
/// question without an answer fails the flow (as a script without the flag would).
final class ScriptedPrompt: ConnectPrompt {
    let answers: [String: String]
    private let said = Mutex<[String]>([])
    private let asked = Mutex<[String]>([])

    init(_ answers: [String: String]) {
        self.answers = answers
    }

    var lines: [String] { said.withLock { $0 } }
    var questions: [String] { asked.withLock { $0 } }

    func say(_ line: String) { said.withLock { $0.append(line) } }

    func answer(_ key: String) throws -> String {
        asked.withLock { $0.append(key) }
        guard let value = answers[key] else { throw ConnectError("no answer for \(key)") }
        return value
    }

    func ask(_ key: String, _ question: String, suggestion: String?) throws -> String { try answer(key) }

    func askSecret(_ key: String, _ question: String) throws -> String { try answer(key) }

    func choose(_ key: String, _ question: String, choices: [ConnectChoice], multiple: Bool) throws -> [Int] {
        guard let picked = ConnectChoice.pick(try answer(key), from: choices), !picked.isEmpty else {
            throw ConnectError("answer for \(key) names no choice")
        }
        return picked
    }

    func hasAnswer(_ key: String) -> Bool { answers[key] != nil }
}
