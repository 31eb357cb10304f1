import Foundation
import Testing

@testable import daygate

/// `daygate check --offline` on a file YAML cannot read: it names the problem, the file and the
/// line. It printed the whole file (every key and secret address in it) for a duplicated key.
@Suite("daygate check keeps a broken file's secrets")
struct CheckCommandSecrecyTests {
    static let secrets = ["check-client-key-5e4d3c2b1a09f8e7", "check-feed-key-0f1e2d3c4b5a6978", "cal-secret-77b0d1"]

    func failure(checking text: String) async throws -> (String, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-check-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("daygate.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let command = try CheckCommand.parse(["--config", path, "--offline"])
        do {
            try await command.run()
        } catch {
            return ("\(error)", path)
        }
        Issue.record("check passed")
        return ("", path)
    }

    static let body = """
        listen: 0.0.0.0:8787
        clients:
          - name: kitchen
            key: \(secrets[0])
            feed_key: \(secrets[1])
        profiles:
          default:
            ics:
              calendars:
                - name: school
                  url: https://calendar.example/\(secrets[2])/basic.ics
        """

    @Test("a duplicated key")
    func duplicatedKey() async throws {
        let (message, path) = try await failure(checking: Self.body + "\nlisten: 127.0.0.1:8787\n")
        #expect(message.hasPrefix("config error: \(path):1: not valid YAML ("), "\(message)")
        for secret in Self.secrets { #expect(!message.contains(secret), "\(message)") }
    }

    @Test("a scanner error on a secret's line")
    func scannerError() async throws {
        let text = Self.body.replacingOccurrences(of: "key: \(Self.secrets[0])", with: "key: `\(Self.secrets[0])")
        let (message, path) = try await failure(checking: text)
        #expect(message.hasPrefix("config error: \(path):4: not valid YAML ("), "\(message)")
        for secret in Self.secrets { #expect(!message.contains(secret), "\(message)") }
    }
}
