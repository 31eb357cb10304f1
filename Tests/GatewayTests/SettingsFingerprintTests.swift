import Backends
import Foundation
import HummingbirdTesting
import Model
import Simulators
import Testing

@testable import daygate

/// Every setting of a backend's section is part of its cache keys (`ProfileConfig.settingsFingerprint`),
/// not only the account: an answer cached under other settings is never served.
@Suite("Settings in the cache key")
struct SettingsFingerprintTests {
    /// A calendar's colour is in every event of it. Changed while the gateway was stopped, the
    /// restarted gateway answers with the new colour at once, not the cached events with the old
    /// one (which were still fresh).
    @Test func aRestartWithAnEditedSettingDoesNotServeAnswersOfTheOldOne() async throws {
        try await withDemo { demo in
            func schoolColours(_ harness: DemoHarness) async throws -> Set<String> {
                try await harness.test { client in
                    let body = try await client.execute(uri: "/v1/events", method: .get).json
                    #expect(body["sections"]?["subscribed"]?["status"] == .string("ok"))
                    let events = body["events"]?.arrayValue ?? []
                    return Set(
                        events.filter { $0["calendar"] == .string("school") }.compactMap { $0["color"]?.stringValue })
                }
            }
            #expect(try await schoolColours(demo) == ["#f59e0b"])
            // Fresh in the cache: asked again, no new fetch and the same colour.
            #expect(try await schoolColours(demo) == ["#f59e0b"])

            let edited = try demo.restarted { profile in
                guard var ics = profile.ics else { return }
                for index in ics.calendars.indices where ics.calendars[index].name == "school" {
                    ics.calendars[index].color = "#7c3aed"
                }
                profile.ics = ics
            }
            #expect(try await schoolColours(edited) == ["#7c3aed"])

            // The same settings after a restart: the kept entry is served again.
            let again = try demo.restarted()
            #expect(try await schoolColours(again) == ["#f59e0b"])
        }
    }

    @Test func theFingerprintFollowsEverySettingAndNothingElse() throws {
        let calendar = ICSSettings.Calendar(name: "school", url: "https://example.org/s.ics", color: "#f59e0b")
        let profile = ProfileConfig([ICSSettings(calendars: [calendar])])
        var recoloured = calendar
        recoloured.color = "#7c3aed"
        var withPassword = calendar
        withPassword.username = "ouders"
        withPassword.password = Secret("one")
        var otherPassword = withPassword
        otherPassword.password = Secret("two")

        let base = profile.settingsFingerprint(of: "ics")
        #expect(base == ProfileConfig([ICSSettings(calendars: [calendar])]).settingsFingerprint(of: "ics"))
        let variants = [recoloured, withPassword, otherPassword].map {
            ProfileConfig([ICSSettings(calendars: [$0])]).settingsFingerprint(of: "ics")
        }
        #expect(Set(variants + [base]).count == 4, "each change gives another fingerprint")
        #expect(profile.settingsFingerprint(of: "eightalls") == CredentialFingerprint.none)
        // The fingerprint is a hash: no setting can be read back from it.
        #expect(!variants[1].contains("one") && base.count == 16)
    }
}
