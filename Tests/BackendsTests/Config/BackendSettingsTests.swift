import Backends
import Foundation
import Model
import Testing
import Yams

/// Each backend decodes its own config section; the loader knows them only through the catalog.
@Suite("Backend settings")
struct BackendSettingsTests {
    let full = """
        clients:
          - name: phone
            key: client-key-0123456789
            profile: default
        profiles:
          default:
            tickedify:
              base_url: http://127.0.0.1:9100
              email: anna@example.org
              password: tickedify-password-1
            eightalls:
              base_url: http://127.0.0.1:9101/api
            kantinekoning:
              base_url: http://127.0.0.1:9102
              enrollments:
                - tenant: club
                  role: member
                  token: kantine-token-123
            fitiq:
              base_url: http://127.0.0.1:9103
              api_key: fitiq-api-key-1
              email: anna@example.org
              password: fitiq-password-1
              refresh_token: fitiq-refresh-1
            prsnl:
              base_url: http://127.0.0.1:9104
              token: prsnl-static-token-1
            ics:
              calendars:
                - name: work
                  url: https://calendar.example/private-ics-key-1/basic.ics
                  token: ics-bearer-token-1
        """

    let secretValues = [
        "tickedify-password-1", "kantine-token-123", "fitiq-api-key-1", "fitiq-password-1", "fitiq-refresh-1",
        "prsnl-static-token-1", "https://calendar.example/private-ics-key-1/basic.ics", "ics-bearer-token-1",
    ]

    func load(_ text: String) throws -> DaygateConfig {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-settings-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("daygate.yaml").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try ConfigLoader.load(path: file, backends: BackendCatalog.settings)
    }

    @Test func everyBackendDecodesItsSection() throws {
        let profile = try #require(try load(full).profiles["default"])
        // The backends written here, each known to the catalog (the demo's profile has every
        // backend of the catalog: AllBackendsTests).
        #expect(profile.configuredBackends == ["eightalls", "fitiq", "ics", "kantinekoning", "prsnl", "tickedify"])
        #expect(Set(profile.configuredBackends).isSubset(of: BackendCatalog.names))
        #expect(profile.tickedify?.password?.reveal() == "tickedify-password-1")
        #expect(profile.eightalls?.endpoint.baseURL == "http://127.0.0.1:9101/api")
        #expect(profile.kantinekoning?.enrollments.first?.token.reveal() == "kantine-token-123")
        #expect(profile.fitiq?.refreshToken?.reveal() == "fitiq-refresh-1")
        #expect(profile.prsnl?.token?.reveal() == "prsnl-static-token-1")
    }

    /// A new secret field is redacted by being declared `Secret`: the config finds it by reflection.
    @Test func theConfigKnowsEverySecretOfEverySection() throws {
        let config = try load(full)
        #expect(config.secrets == Set(secretValues + ["client-key-0123456789"]))
    }

    @Test func printedOrEncodedSettingsCarryNoSecret() throws {
        let config = try load(full)
        let profile = try #require(config.profiles["default"])
        var dumped = ""
        dump(profile, to: &dumped)
        let encoded = String(decoding: try JSONEncoder().encode(profile), as: UTF8.self)
        for text in ["\(profile)", dumped, encoded, "\(profile.tickedify!)", "\(profile.kantinekoning!)"] {
            for value in secretValues { #expect(!text.contains(value), "\(value) in \(text)") }
        }
    }

    @Test func anUnknownBackendIsNamedWithItsLineAndTheKnownOnes() throws {
        do {
            _ = try load(
                """
                profiles:
                  default:
                    eightalls:
                      base_url: http://127.0.0.1:9101/api
                    googlecalendar:
                      base_url: http://127.0.0.1:9999
                """)
            Issue.record("an unknown backend loaded")
        } catch let error as YAMLSourceError {
            #expect(error.line == 5)
            #expect(error.keyPath == "profiles.default.googlecalendar")
            for name in BackendCatalog.names { #expect(error.reason.contains(name), "\(error.reason)") }
        }
    }

    /// What `daygate simulate` writes (secrets revealed on purpose) loads back to the same profile.
    @Test func aProfileEncodedWithItsSecretsLoadsBack() throws {
        let profile = try #require(try load(full).profiles["default"])
        let yaml = try YAMLEncoder().encode(["default": profile], userInfo: [.revealSecrets: true])
        let indented = yaml.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        let again = try #require(try load("profiles:\n" + indented + "\n").profiles["default"])
        #expect(Set(again.secrets.map { $0.reveal() }) == Set(secretValues))
        #expect(again.endpoints == profile.endpoints)
    }
}
