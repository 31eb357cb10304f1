import ArgumentParser
import Foundation
import Testing

@testable import daygate

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Secrets for `demo` and `connect` from files, pipes and standard input instead of the
/// command line (where `ps` shows them to every local user).
@Suite("Secrets from files and standard input")
struct SecretInputTests {
    /// A pipe holding `text` with its writing end closed, as `<(printf …)` hands one over;
    /// returns the reading end.
    static func pipeHolding(_ text: String) throws -> Int32 {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == bytes.count)
        close(ends[1])
        return ends[0]
    }

    static func withFile(_ text: String, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-secret-\(UUID())").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test("a file: its text without the final line break")
    func fromFile() throws {
        try Self.withFile("s3cret-password\n") { (path: String) throws in
            #expect(try SecretInput.contents(of: path, flag: "--password-file") == "s3cret-password")
        }
        try Self.withFile("with-crlf\r\n") { (path: String) throws in
            #expect(try SecretInput.contents(of: path, flag: "--password-file") == "with-crlf")
        }
        try Self.withFile("\n") { path in
            #expect(throws: ValidationError.self) { try SecretInput.contents(of: path, flag: "--password-file") }
        }
        #expect(throws: ValidationError.self) {
            try SecretInput.contents(of: "/nonexistent/secret", flag: "--password-file")
        }
    }

    @Test("process substitution: /dev/fd/N is a pipe, read once as a stream")
    func fromProcessSubstitution() throws {
        let descriptor = try Self.pipeHolding("piped-password\n")
        defer { close(descriptor) }
        #expect(try SecretInput.contents(of: "/dev/fd/\(descriptor)", flag: "--password-file") == "piped-password")
    }

    @Test("- is standard input")
    func fromStandardInput() throws {
        let descriptor = try Self.pipeHolding("stdin-secret")
        defer { close(descriptor) }
        #expect(try SecretInput.contents(of: "-", flag: "--link-file", standardInput: descriptor) == "stdin-secret")
    }

    @Test("connect: --password-file <(…), --link-file, --answer-file, and - once")
    func connectFiles() throws {
        let password = try Self.pipeHolding("pw-from-pipe\n")
        let link = try Self.pipeHolding("https://tickedify.com/al/\(String(repeating: "ab", count: 30))\n")
        defer {
            close(password)
            close(link)
        }
        try Self.withFile("kk-token-value\n") { tokenFile in
            let command = try ConnectCommand.parse([
                "tickedify", "--config", "x.yaml", "--password-file", "/dev/fd/\(password)", "--link-file", "-",
                "--answer-file", "token=\(tokenFile)",
            ])
            var warnings: [String] = []
            let answers = try command.answers(standardInput: link) { warnings.append($0) }
            #expect(answers["password"] == "pw-from-pipe")
            #expect(answers["link"] == "https://tickedify.com/al/\(String(repeating: "ab", count: 30))")
            #expect(answers["token"] == "kk-token-value")
            #expect(warnings.isEmpty)
        }
        let twice = try ConnectCommand.parse([
            "tickedify", "--config", "x.yaml", "--password-file", "-", "--link-file", "-",
        ])
        #expect(throws: ValidationError.self) { _ = try twice.answers(standardInput: password) { _ in } }
        #expect(throws: ValidationError.self) {
            _ = try ConnectCommand.parse(["tickedify", "--config", "x", "--answer-file", "nofile"]).answers { _ in }
        }
    }

    @Test("connect: secrets on the command line still work, with a warning each")
    func connectInlineSecretsWarn() throws {
        let command = try ConnectCommand.parse([
            "tickedify", "--config", "x.yaml", "--answer", "password=inline-pw", "--link", "https://x/al/1",
            "--answer", "club-choice=2",
        ])
        var warnings: [String] = []
        let answers = try command.answers { warnings.append($0) }
        #expect(answers["password"] == "inline-pw")
        #expect(answers["link"] == "https://x/al/1")
        #expect(warnings.count == 2)
        #expect(warnings.allSatisfy { $0.contains("ps") && !$0.contains("inline-pw") && !$0.contains("https://x") })
        #expect(warnings.contains { $0.contains("--answer-file password=") })
        #expect(warnings.contains { $0.contains("--link-file") })
    }

    @Test("demo: --client-key-file (a file, a pipe, -), --client-key with a warning, not both")
    func demoClientKey() throws {
        let key = "demo-client-key-0123456789"
        try Self.withFile(key + "\n") { path in
            var warnings: [String] = []
            let fromFile = try DemoCommand.parse(["--client-key-file", path]).requiredKey { warnings.append($0) }
            #expect(fromFile == key)
            #expect(warnings.isEmpty)
            #expect(throws: ValidationError.self) {
                _ = try DemoCommand.parse(["--client-key-file", path, "--client-key", key]).requiredKey { _ in }
            }
        }
        let piped = try Self.pipeHolding(key)
        defer { close(piped) }
        #expect(try DemoCommand.parse(["--client-key-file", "/dev/fd/\(piped)"]).requiredKey { _ in } == key)
        let stdin = try Self.pipeHolding(key + "\n")
        defer { close(stdin) }
        #expect(try DemoCommand.parse(["--client-key-file", "-"]).requiredKey(standardInput: stdin) { _ in } == key)

        var warnings: [String] = []
        #expect(try DemoCommand.parse(["--client-key", key]).requiredKey { warnings.append($0) } == key)
        #expect(warnings.count == 1 && warnings[0].contains("--client-key-file") && !warnings[0].contains(key))
        let short = try Self.pipeHolding("short")
        defer { close(short) }
        #expect(throws: ValidationError.self) {
            _ = try DemoCommand.parse(["--client-key-file", "/dev/fd/\(short)"]).requiredKey { _ in }
        }
        #expect(try DemoCommand.parse([]).requiredKey { _ in } == nil)
    }
}
