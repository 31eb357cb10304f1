import Foundation
import Logging
import Model
import Simulators
import Testing

@testable import Backends

/// FitIQ tokens belong to the account on its server, not to the profile: a changed e-mail
/// logs in as the new account instead of using the old one's token; a rotated refresh token
/// kept under the profile's name by an older gateway moves to its account.
@Suite("FitIQ accounts")
struct FitIQAccountTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let day = LocalDate(year: 2026, month: 11, day: 23)
    static let login = "POST /api/v1/auth/login"

    static func settings(_ sim: RunningSimulator, email: String, password: String) -> FitIQSettings {
        FitIQSettings(
            endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), apiKey: Secret(FitIQSimulator.demoAPIKey), email: email,
            password: Secret(password))
    }

    @Test func aChangedEmailNeverUsesTheOldAccountsToken() async throws {
        let sim = try await FitIQSimulator(options: .init(seedDay: Self.day.description, timeZone: Self.zone)).start()
        let anna = Self.settings(sim, email: FitIQSimulator.demoEmail, password: FitIQSimulator.demoPassword)
        let bas = Self.settings(sim, email: "bas@example.org", password: "Bas-Demo-2025!")
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([anna]), zone: Self.zone) { sim, context in
            var context = context
            context.clock = RequestClock(
                now: Self.day.start(in: Self.zone).addingTimeInterval(20 * 3600), timeZone: Self.zone)
            func goal(_ settings: FitIQSettings) async throws -> Double? {
                var asked = context
                asked.profile = ProfileConfig([settings])
                let output = try await FitIQNutritionOperation().fetch(["date": .date(Self.day)], context: asked)
                return try JSONDecoder().decode(JSONValue.self, from: output.body)["goal_calories"]?.numberValue
            }
            let annas = try await goal(anna)
            #expect(annas == 2200)
            #expect(sim.control.calls(Self.login) == 1)
            // The same profile with Bas's e-mail: his own login and his own goal.
            let bass = try await goal(bas)
            #expect(bass == 2600)
            #expect(sim.control.calls(Self.login) == 2)
            // Anna's token is still hers.
            let annasAgain = try await goal(anna)
            #expect(annasAgain == 2200)
            #expect(sim.control.calls(Self.login) == 2)
            #expect(FitIQClient.scope(anna) != FitIQClient.scope(bas))
            #expect(FitIQClient.fingerprint(anna) != FitIQClient.fingerprint(bas), "cached answers are per account too")
        }
    }

    /// An older gateway kept the rotated refresh token under the profile's name; when it came
    /// from the refresh token configured now, it is the same account's, and it is used (the
    /// configured one is spent: refresh tokens are single-use).
    @Test func aRotatedRefreshTokenOfAnOlderGatewayMovesToItsAccount() async throws {
        let sim = try await FitIQSimulator(options: .init(seedDay: Self.day.description, timeZone: Self.zone)).start()
        let login = Self.settings(sim, email: FitIQSimulator.demoEmail, password: FitIQSimulator.demoPassword)
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([login]), zone: Self.zone) { sim, context in
            // Two refresh tokens from two logins: the first is "configured", the second is
            // the one it was rotated into.
            let configured = try await Self.refreshToken(sim)
            let rotated = try await Self.refreshToken(sim)
            let settings = FitIQSettings(
                endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), apiKey: Secret(FitIQSimulator.demoAPIKey),
                refreshToken: Secret(configured))
            let vault = context.vault
            try await vault.setValue(rotated, profile: "default", backend: "fitiq", name: "refresh_token")
            try await vault.setValue(
                CredentialFingerprint.of([configured]), profile: "default", backend: "fitiq", name: "refresh_source")
            // The configured token is spent.
            _ = try await SimulatorBackedTest.call(
                sim, .POST, "/api/v1/auth/refresh", json: #"{"refresh_token":"\#(configured)"}"#,
                headers: [("X-API-Key", FitIQSimulator.demoAPIKey)])
            var asked = context
            asked.profile = ProfileConfig([settings])
            sim.control.resetStats()
            _ = try await FitIQNutritionOperation().fetch(["date": .date(Self.day)], context: asked)
            #expect(sim.control.calls("POST /api/v1/auth/refresh") == 1)
            let scope = FitIQClient.scope(settings).description
            #expect(await vault.value(profile: scope, backend: "fitiq", name: "refresh_token") != nil)
            #expect(
                await vault.value(profile: scope, backend: "fitiq", name: "refresh_token") != rotated, "rotated again")
            #expect(await vault.value(profile: "default", backend: "fitiq", name: "refresh_token") == nil)
        }
    }

    /// A mistyped API key answers 401 on `/auth/refresh` just as a spent token does: the kept
    /// refresh token stays, the error names the key, and once the key is right again (a reload
    /// starts new sessions) FitIQ answers without `daygate connect` and without a login.
    @Test func aWrongAPIKeyKeepsTheLoginAndTheRightKeyServesAgain() async throws {
        let sim = try await FitIQSimulator(options: .init(seedDay: Self.day.description, timeZone: Self.zone)).start()
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([]), zone: Self.zone) { sim, context in
            let configured = try await Self.refreshToken(sim)
            func settings(key: String) -> FitIQSettings {
                FitIQSettings(
                    endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), apiKey: Secret(key),
                    refreshToken: Secret(configured))
            }
            let right = settings(key: FitIQSimulator.demoAPIKey)
            let wrong = settings(key: "fitiq-mistyped-key")
            let vault = context.vault
            func fetch(_ settings: FitIQSettings) async throws {
                var asked = context
                asked.profile = ProfileConfig([settings])
                asked.sessions = SessionRegistry(vault: vault)
                _ = try await FitIQNutritionOperation().fetch(["date": .date(Self.day)], context: asked)
            }
            try await fetch(right)
            let scope = FitIQClient.scope(right).description
            let kept = try #require(await vault.value(profile: scope, backend: "fitiq", name: "refresh_token"))

            sim.control.resetStats()
            let refused = await #expect(throws: BackendError.self) { try await fetch(wrong) }
            #expect(refused?.kind == .reauthRequired)
            #expect(refused?.message.contains("API key") == true, "\(refused?.message ?? "")")
            #expect(refused?.message.contains("fitiq-mistyped-key") == false)
            #expect(await vault.value(profile: scope, backend: "fitiq", name: "refresh_token") == kept)

            // The access token from before has run out meanwhile: the kept refresh token is used.
            _ = try await SimulatorBackedTest.call(sim, .POST, "/_sim/tokens/expire")
            sim.control.resetStats()
            try await fetch(right)
            #expect(sim.control.calls("POST /api/v1/auth/refresh") == 1)
            #expect(sim.control.calls(Self.login) == 0)
        }
    }

    /// A refresh refused with a message that names the token proves it spent; anything else is
    /// checked against the key first.
    @Test func aRefusedRefreshIsReadByWhatItSays() {
        #expect(FitIQRefreshRefusal.classify(status: 401, message: "refresh token has been revoked") == .tokenSpent)
        #expect(FitIQRefreshRefusal.classify(status: 401, message: "invalid refresh token") == .tokenSpent)
        #expect(FitIQRefreshRefusal.classify(status: 401, message: "Invalid API key") == .unexplained)
        #expect(FitIQRefreshRefusal.classify(status: 401, message: nil) == .unexplained)
        #expect(FitIQRefreshRefusal.classify(status: 500, message: "refresh token has been revoked") == .unexplained)
        #expect(FitIQKeyProbe.classify(status: 404) == .keyAccepted)
        #expect(FitIQKeyProbe.classify(status: 401) == .keyRefused)
        #expect(FitIQKeyProbe.classify(status: 403) == .keyRefused)
        #expect(FitIQKeyProbe.classify(status: 502) == .unknown)
    }

    static func refreshToken(_ sim: RunningSimulator) async throws -> String {
        let answer = try await SimulatorBackedTest.call(
            sim, .POST, "/api/v1/auth/login",
            json: #"{"email":"\#(FitIQSimulator.demoEmail)","password":"\#(FitIQSimulator.demoPassword)"}"#,
            headers: [("X-API-Key", FitIQSimulator.demoAPIKey)])
        return try #require(answer["data"]?["refresh_token"]?.stringValue)
    }
}
