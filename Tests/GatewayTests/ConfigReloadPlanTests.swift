import Backends
import Foundation
import Gateway
import Model
import Testing

/// What a reload does with a new config, decided without sockets.
struct ConfigReloadPlanTests {
    static func config(
        listen: ListenAddress = .defaultAddress, eightalls: String? = "http://127.0.0.1:9101/api",
        fitiqPassword: String? = nil, clients: [ClientConfig] = [], timezone: String = "Europe/Amsterdam"
    ) -> DaygateConfig {
        var settings: [any BackendSettings] = []
        if let eightalls { settings.append(EightAllsSettings(endpoint: BackendEndpoint(baseURL: eightalls))) }
        if let fitiqPassword {
            settings.append(
                FitIQSettings(
                    endpoint: BackendEndpoint(baseURL: "http://127.0.0.1:9103"), apiKey: Secret("key-1234"),
                    email: "anna@example.org", password: Secret(fitiqPassword)))
        }
        return DaygateConfig(
            listen: listen, stateDir: "/var/lib/daygate", timezone: timezone, routesDir: "/usr/share/daygate/routes",
            profiles: ["default": ProfileConfig(settings)], clients: clients)
    }

    @Test func theSameConfigChangesNothing() throws {
        let plan = try ConfigReloadPlan.make(running: Self.config(), loaded: Self.config())
        #expect(plan.isUnchanged)
        #expect(plan.sections.isEmpty)
    }

    @Test func whatOnlyARestartChangesKeepsItsRunningValueAndIsReported() throws {
        let running = Self.config()
        var loaded = running
        loaded.listen = ListenAddress(host: "127.0.0.1", port: 9999)
        loaded.stateDir = "/srv/daygate"
        loaded.limits.maxConnections = 10
        loaded.cache.maxSize = .megabytes(5)
        loaded.cache.ttl = ["eightalls.events": .seconds(5)]
        let plan = try ConfigReloadPlan.make(running: running, loaded: loaded)
        #expect(
            plan.restartRequired.map(\.setting).sorted() == [
                "cache.max_size", "limits.max_connections", "listen", "state_dir",
            ])
        let listen = try #require(plan.restartRequired.first { $0.setting == "listen" })
        #expect(listen.running == "127.0.0.1:8787" && listen.configured == "127.0.0.1:9999")
        #expect(plan.effective.listen == running.listen)
        #expect(plan.effective.stateDir == running.stateDir)
        #expect(plan.effective.limits == running.limits)
        #expect(plan.effective.cache.maxSize == running.cache.maxSize)
        // A TTL is read per request: it takes effect.
        #expect(plan.changed == ["cache.ttl"])
        #expect(plan.effective.cache.ttl == ["eightalls.events": .seconds(5)])
    }

    @Test func settingsReadPerRequestTakeEffect() throws {
        let plan = try ConfigReloadPlan.make(
            running: Self.config(), loaded: Self.config(timezone: "America/New_York"))
        #expect(plan.changed == ["timezone"])
        #expect(plan.restartRequired.isEmpty)
        #expect(plan.effective.timezone == "America/New_York")
    }

    @Test func aChangedBaseURLIsAChangedAccount() throws {
        let plan = try ConfigReloadPlan.make(
            running: Self.config(), loaded: Self.config(eightalls: "http://127.0.0.1:9201/api"))
        #expect(plan.sections == [.init(profile: "default", backend: "eightalls", kind: .changed)])
        #expect(plan.changed.isEmpty)
    }

    /// Secrets encode as `<redacted>`: the plan must compare their values, or a new password
    /// would keep the old account's sessions and entries.
    @Test func aChangedPasswordAloneIsAChangedAccount() throws {
        let plan = try ConfigReloadPlan.make(
            running: Self.config(fitiqPassword: "old-password"), loaded: Self.config(fitiqPassword: "new-password"))
        #expect(plan.sections == [.init(profile: "default", backend: "fitiq", kind: .changed)])
        #expect(!plan.sections.description.contains("password"))
    }

    @Test func addedAndRemovedSectionsAndProfiles() throws {
        var loaded = Self.config(eightalls: nil, fitiqPassword: "pw-1234")
        loaded.profiles["kids"] = ProfileConfig([
            EightAllsSettings(endpoint: BackendEndpoint(baseURL: "http://127.0.0.1:9101/api"))
        ])
        let plan = try ConfigReloadPlan.make(running: Self.config(), loaded: loaded)
        #expect(
            plan.sections == [
                .init(profile: "default", backend: "eightalls", kind: .removed),
                .init(profile: "default", backend: "fitiq", kind: .added),
                .init(profile: "kids", backend: "eightalls", kind: .added),
            ])
    }

    /// Beyond loopback the keys are what keeps the household's data in: a config without them
    /// is not taken (a restart would refuse it too).
    @Test func removingEveryClientKeyWhileListeningBeyondLoopbackIsRefused() throws {
        let wide = ListenAddress(host: "0.0.0.0", port: 8787)
        let keys = [ClientConfig(name: "ha", key: "k-123456789", profile: "default")]
        #expect(throws: ConfigReloadPlan.Refusal.noClientKeys(listen: wide)) {
            try ConfigReloadPlan.make(
                running: Self.config(listen: wide, clients: keys), loaded: Self.config(listen: wide))
        }
        // The file's listen going back to loopback does not help: the socket stays where it is.
        #expect(throws: ConfigReloadPlan.Refusal.noClientKeys(listen: wide)) {
            try ConfigReloadPlan.make(running: Self.config(listen: wide, clients: keys), loaded: Self.config())
        }
        let plan = try ConfigReloadPlan.make(
            running: Self.config(listen: wide, clients: keys),
            loaded: Self.config(
                listen: wide, clients: [ClientConfig(name: "ha", key: "k-987654321", profile: "default")]))
        #expect(plan.changed == ["clients"])
    }
}
