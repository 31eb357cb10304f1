import Backends
import Foundation
import Model
import Testing
import Yams

/// Each backend decodes its own config section; the loader knows them only through the catalog.
@Suite("Backend settings")
struct BackendSettingsTests {
    /// Every backend of the catalog, each with its sample section.
    let full = BackendSamples.config
    let secretValues = BackendSamples.secrets

    func load(_ text: String) throws -> DaygateConfig { try BackendSamples.load(text) }

    @Test func everyBackendDecodesItsSection() throws {
        let profile = try #require(try load(full).profiles["default"])
        // Every backend of the catalog, from its own sample section.
        #expect(Set(profile.configuredBackends) == Set(BackendCatalog.names))
        #expect(profile.secrets.count == secretValues.count, "each sample's secrets are its Secret fields")
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
        for text in ["\(profile)", dumped, encoded] {
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
