import Backends
import Foundation
import Model
import Simulators
import Testing

@testable import daygate

/// `daygate init`, `daygate connect` and `daygate check` as a person runs them: a config file,
/// its state directory, the simulators.
@Suite("daygate init, connect and check")
struct ConnectCommandTests {
    /// A fresh folder, removed afterwards.
    static func inFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-connect-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            try await body(folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        try? FileManager.default.removeItem(at: folder)
    }

    static func prompt(_ answers: [String: String]) -> TerminalPrompt {
        TerminalPrompt(answers: answers, interactive: false, write: { _ in })
    }

    /// Every byte of every file under `folder`, as text (lossy).
    static func contents(of folder: URL) throws -> [(String, String)] {
        var found: [(String, String)] = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url) {
                found.append((url.lastPathComponent, String(decoding: data, as: UTF8.self)))
            }
        }
        return found
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0) & 0o777
    }

    @Test("without a terminal a missing answer names its flag; given answers are used, choices by key")
    func scriptedAnswers() throws {
        let prompt = Self.prompt(["club": "vvwilhelmus", "flow": "email"])
        #expect(try prompt.ask("club", "Club") == "vvwilhelmus")
        #expect(try prompt.ask("listen", "Listen", suggestion: "127.0.0.1:8787") == "127.0.0.1:8787")
        do {
            _ = try prompt.askSecret("password", "Password")
            Issue.record("a missing password was not refused")
        } catch let error as ConnectError {
            #expect(error.message.contains("--password-file"))
        }
        let choices = [ConnectChoice(key: "member", label: "member"), ConnectChoice(key: "email", label: "e-mail")]
        #expect(try prompt.choose("flow", "How?", choices: choices, multiple: false) == [1])
        #expect(throws: ConnectError.self) {
            _ = try prompt.choose("club", "Which?", choices: choices, multiple: false)
        }
    }

    @Test("connect's flags become the flow's answers")
    func connectFlags() throws {
        let command = try ConnectCommand.parse([
            "kantinekoning", "--config", "x.yaml", "--club", "vvwilhelmus", "--team", "JO11-3,JO13-1", "--flow",
            "member", "--answer", "club-choice=2", "--profile", "kids",
        ])
        #expect(command.backend == "kantinekoning")
        #expect(command.profile == "kids")
        #expect(
            try command.answers() == [
                "club": "vvwilhelmus", "team": "JO11-3,JO13-1", "flow": "member", "club-choice": "2",
            ])
        #expect(throws: (any Error).self) {
            _ = try ConnectCommand.parse(["fitiq", "--config", "x", "--answer", "novalue"]).answers()
        }
    }

    @Test("init: a commented config for this machine that loads, 0600, never over an existing file")
    func initWritesALoadableConfig() async throws {
        try await Self.inFolder { folder in
            let path = folder.appendingPathComponent("daygate.yaml").path
            let plan = try InitPlan(
                backends: ["tickedify", "kantinekoning,eightalls", "prsnl", "ics"], listen: "0.0.0.0:8787",
                email: "anna@example.org", timeZone: TimeZone(identifier: "America/Denver")!)
            try plan.write(to: path, force: false)
            #expect(try Self.mode(path) == 0o600)
            let loaded = try ConfigLoader.load(path: path, backends: BackendCatalog.settings)
            #expect(loaded.timezone == "America/Denver")
            #expect(loaded.clients.count == 1)
            #expect(loaded.clients.first?.key == plan.clientKey)
            #expect(plan.clientKey?.count == 64)
            let profile = try #require(loaded.profiles["default"])
            #expect(profile.configuredBackends == ["eightalls", "kantinekoning", "prsnl", "tickedify"])
            #expect(profile.tickedify?.email == "anna@example.org")
            let next = plan.nextSteps(configPath: "daygate.yaml")
            #expect(next.contains("daygate connect tickedify --config daygate.yaml"))
            #expect(next.contains("daygate connect kantinekoning --config daygate.yaml"))
            #expect(!next.contains("daygate connect eightalls"))
            #expect(next.contains("daygate check --config daygate.yaml"))
            #expect(!next.contains(plan.clientKey ?? "-"))
            // Not over an existing file, unless forced.
            #expect(throws: FailureMessage.self) { try plan.write(to: path, force: false) }
            let loopback = try InitPlan(
                backends: [], listen: "127.0.0.1:8787", email: "x@example.org",
                timeZone: TimeZone(identifier: "Asia/Tokyo")!)
            #expect(loopback.clientKey == nil)
            try loopback.write(to: path, force: true)
            let reloaded = try ConfigLoader.load(path: path, backends: BackendCatalog.settings)
            #expect(reloaded.clients.isEmpty)
            #expect(reloaded.timezone == "Asia/Tokyo")
            #expect(throws: (any Error).self) {
                _ = try InitPlan(backends: ["nope"], listen: "127.0.0.1:1", email: "x", timeZone: .current)
            }
        }
    }

    @Test(
        "connect keeps tokens only (no password in the state dir or the output, vault 0600); check tells good from bad")
    func connectThenCheck() async throws {
        let tickedify = try await TickedifySimulator().start()
        let fitiq = try await FitIQSimulator().start()
        let prsnl = try await PRSNLSimulator().start()
        let kantine = try await KantineKoningSimulator().start()
        do {
            try await Self.inFolder { folder in
                let path = folder.appendingPathComponent("daygate.yaml").path
                try """
                state_dir: state
                profiles:
                  default:
                    tickedify: {base_url: "\(tickedify.apiBaseURL)", email: \(TickedifySimulator.demoEmail)}
                    fitiq: {base_url: "\(fitiq.apiBaseURL)", api_key: \(FitIQSimulator.demoAPIKey), email: \(FitIQSimulator.demoEmail)}
                    prsnl: {base_url: "\(prsnl.apiBaseURL)", email: \(PRSNLSimulator.demoEmail)}
                    kantinekoning: {base_url: "\(kantine.apiBaseURL)"}
                  wrong:
                    prsnl: {base_url: "\(prsnl.apiBaseURL)", email: someone-else@example.org, password: not-the-password}
                    kantinekoning:
                      base_url: "\(kantine.apiBaseURL)"
                      enrollments:
                        - {tenant: vvwilhelmus, role: member, token: "\(KantineKoningSimulator.revokedToken)"}
                """.write(toFile: path, atomically: true, encoding: .utf8)
                let config = try ConfigLoader.load(path: path, backends: BackendCatalog.settings)
                // Before connecting, the accounts fail the check.
                let before = try await CredentialChecks.run(config)
                #expect(before.failed >= 4)
                var output: [String] = []
                output.append(
                    try await ConnectRunner.run(
                        backend: "tickedify", configPath: path, profile: "default", action: .connect,
                        prompt: Self.prompt(["password": TickedifySimulator.demoPassword])))
                output.append(
                    try await ConnectRunner.run(
                        backend: "fitiq", configPath: path, profile: "default", action: .connect,
                        prompt: Self.prompt(["password": FitIQSimulator.demoPassword])))
                output.append(
                    try await ConnectRunner.run(
                        backend: "prsnl", configPath: path, profile: "default", action: .connect,
                        prompt: Self.prompt(["password": PRSNLSimulator.demoPassword])))
                output.append(
                    try await ConnectRunner.run(
                        backend: "kantinekoning", configPath: path, profile: "default", action: .connect,
                        prompt: Self.prompt(["club": "vvwilhelmus", "team": "JO13-1", "flow": "member"])))
                output.append(
                    try await ConnectRunner.run(
                        backend: "eightalls", configPath: path, profile: "default", action: .connect,
                        prompt: Self.prompt([:])))
                #expect(output[4].contains("needs nothing"))
                output.append(
                    try await ConnectRunner.run(
                        backend: "kantinekoning", configPath: path, profile: "default", action: .list,
                        prompt: Self.prompt([:])))
                #expect(output[5].contains("VV Wilhelmus (member JO13-1)"))
                let passwords = [
                    TickedifySimulator.demoPassword, FitIQSimulator.demoPassword, PRSNLSimulator.demoPassword,
                ]
                let state = folder.appendingPathComponent("state")
                let files = try Self.contents(of: state)
                #expect(!files.isEmpty)
                for password in passwords {
                    for (name, text) in files { #expect(!text.contains(password), "\(name) holds a password") }
                    for line in output { #expect(!line.contains(password)) }
                }
                for (name, _) in files where name.hasPrefix("cache.sqlite") {
                    #expect(try Self.mode(state.appendingPathComponent(name).path) == 0o600, "\(name)")
                }
                #expect(try Self.mode(state.path) == 0o700)
                // Now the default profile's logins all work; the wrong profile's do not.
                let after = try await CredentialChecks.run(config)
                let good = after.lines.filter { $0.hasPrefix("default/") }
                let bad = after.lines.filter { $0.hasPrefix("wrong/") }
                #expect(good.allSatisfy { !$0.contains("FAILED") }, "\(good)")
                #expect(good.count == 4)
                #expect(bad.count == 2)
                #expect(bad.allSatisfy { $0.contains("FAILED") }, "\(bad)")
                #expect(after.failed == 2)
                #expect(bad.contains { $0.contains("withdrew this enrollment") })
                for line in after.lines { #expect(!line.contains("not-the-password")) }
                // An unknown backend and a missing profile are refused in a sentence.
                await #expect(throws: FailureMessage.self) {
                    _ = try await ConnectRunner.run(
                        backend: "nope", configPath: path, profile: "default", action: .connect,
                        prompt: Self.prompt([:]))
                }
                await #expect(throws: FailureMessage.self) {
                    _ = try await ConnectRunner.run(
                        backend: "fitiq", configPath: path, profile: "absent", action: .connect,
                        prompt: Self.prompt([:]))
                }
            }
        } catch {
            for sim in [tickedify, fitiq, prsnl, kantine] { await sim.stop() }
            throw error
        }
        for sim in [tickedify, fitiq, prsnl, kantine] { await sim.stop() }
    }
}
