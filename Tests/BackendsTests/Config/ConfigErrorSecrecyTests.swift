import Backends
import Foundation
import Testing

@testable import Model

/// A config that YAML cannot read is reported by problem, file and line — never by its text.
/// Yams' own messages quote the document (a duplicated key: all of it), and those messages
/// reach `/readyz`, the log and `daygate check`.
@Suite("Config errors keep the file's secrets")
struct ConfigErrorSecrecyTests {
    static let clientKey = "client-key-0a1b2c3d4e5f6a7b8c9d"
    static let feedKey = "feed-key-9f8e7d6c5b4a3f2e1d0c"
    static let calendarURL = "https://calendar.example/private-4c1f9e2b7a/basic.ics"
    static let password = "fitiq-password-Zq8!x"
    static let secrets = [clientKey, feedKey, calendarURL, "private-4c1f9e2b7a", password]

    /// A config with every kind of secret in it (the password on line 18, the last).
    static var config: String {
        """
        listen: 0.0.0.0:8787
        timezone: Europe/Amsterdam
        clients:
          - name: kitchen
            key: \(clientKey)
            feed_key: \(feedKey)
            profile: default
        profiles:
          default:
            ics:
              calendars:
                - name: school
                  url: \(calendarURL)
            fitiq:
              base_url: http://127.0.0.1:9103
              api_key: fitiq-api-key-1
              email: anna@example.org
              password: \(password)
        """
    }

    /// Writes `text` as `daygate.yaml` in a fresh folder and returns the loader's error.
    static func error(loading text: String) throws -> (YAMLSourceError, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-secrecy-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("daygate.yaml").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try ConfigLoader.load(path: file, environment: [:], backends: BackendCatalog.settings)
        } catch let error as YAMLSourceError {
            return (error, file)
        }
        Issue.record("the config loaded")
        throw CancellationError()
    }

    static func expectNoSecret(in text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!text.contains(secret), "\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("a duplicated key names the key, the file and the line, not the file's text")
    func duplicatedKey() throws {
        // `timezone` (line 2) again at line 19, after every secret.
        let text = Self.config + "\ntimezone: Europe/Paris\n"
        let (error, file) = try Self.error(loading: text)
        Self.expectNoSecret(in: error.description)
        Self.expectNoSecret(in: error.reason)
        #expect(error.file == file)
        #expect(error.line == 2)
        #expect(error.reason.contains("'timezone'"))
        #expect(error.reason.contains("twice"))
        #expect(error.description.hasPrefix("\(file):2: "))
    }

    @Test("a duplicated key that looks like a secret is not named")
    func duplicatedSecretLookingKey() throws {
        let text = "\(Self.clientKey): 1\n\(Self.clientKey): 2\n"
        let (error, _) = try Self.error(loading: text)
        Self.expectNoSecret(in: error.description)
        #expect(error.line == 1)
        #expect(error.reason.contains("a key appears twice"))
    }

    @Test("a scanner error on a secret's line: the problem and the line, no snippet")
    func scannerError() throws {
        // `%` cannot start a plain value: the scanner stops on the password's line (18).
        let text = Self.config.replacingOccurrences(
            of: "password: \(Self.password)", with: "password: %\(Self.password)")
        let (error, file) = try Self.error(loading: text)
        Self.expectNoSecret(in: error.description)
        #expect(error.file == file)
        #expect(error.line == 18)
        #expect(error.reason.hasPrefix("not valid YAML ("))
    }

    @Test("a parser error after a secret: the problem and the line, no snippet")
    func parserError() throws {
        // A key indented less than its siblings, right under the client and feed keys.
        let text = Self.config.replacingOccurrences(
            of: "    profile: default", with: "   profile: default")
        let (error, file) = try Self.error(loading: text)
        Self.expectNoSecret(in: error.description)
        #expect(error.file == file)
        #expect(error.line == 7)
        #expect(error.reason.hasPrefix("not valid YAML ("))
    }

    @Test("a quoted secret left open: the problem and a line, no snippet")
    func unterminatedQuote() throws {
        let text = Self.config.replacingOccurrences(
            of: "key: \(Self.clientKey)", with: "key: \"\(Self.clientKey)")
        let (error, _) = try Self.error(loading: text)
        Self.expectNoSecret(in: error.description)
        #expect(error.line != nil)
    }

    @Test("key names: the config's own words, not what looks like a pasted secret")
    func plainKeyNames() {
        #expect(YAMLDocument.isPlainKeyName("feed_key"))
        #expect(YAMLDocument.isPlainKeyName("eightalls.events"))
        #expect(YAMLDocument.isPlainKeyName("kitchen-tablet"))
        #expect(!YAMLDocument.isPlainKeyName(Self.clientKey))
        #expect(!YAMLDocument.isPlainKeyName("Hunter2Secret"))
        #expect(!YAMLDocument.isPlainKeyName("https://x"))
        #expect(!YAMLDocument.isPlainKeyName(""))
    }
}
