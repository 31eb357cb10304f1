import AsyncHTTPClient
import Backends
import Foundation
import Gateway
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

/// Reload without restart, end to end: a live gateway on a free port started from a config
/// file and a routes folder of its own, two 8alls simulators (the account before and after),
/// and one keep-alive connection that must survive the reload.
@Suite struct ReloadTests {
    static let zone = GatewayHarness.zone

    /// A config file and routes folder in a fresh temporary folder.
    struct Files {
        let folder: URL
        var config: String { folder.appendingPathComponent("daygate.yaml").path }
        var routes: URL { folder.appendingPathComponent("routes") }

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "daygate-reload-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: URL(fileURLWithPath: GatewayHarness.routesDir), to: folder.appendingPathComponent("routes"))
        }

        func writeConfig(eightalls: String, timezone: String = ReloadTests.zone.identifier, extra: String = "") throws {
            let text = """
                listen: 127.0.0.1:8787
                state_dir: state
                timezone: \(timezone)
                static_dir: /nonexistent
                \(extra)
                profiles:
                  default:
                    eightalls:
                      base_url: \(eightalls)
                      timeout: 5s

                """
            try text.write(toFile: config, atomically: true, encoding: .utf8)
        }

        func load() throws -> DaygateConfig {
            try ConfigLoader.load(path: config, environment: [:], backends: BackendCatalog.settings)
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// A gateway from `files` on a free port, reloadable from the same file, for the length of
    /// `body`.
    func withGateway<Value: Sendable>(
        _ files: Files, now: @escaping @Sendable () -> Date = { Date() },
        _ body: @Sendable (ReloadableGateway, Int) async throws -> Value
    ) async throws -> Value {
        let runtime = try GatewayRuntime(config: files.load(), httpClient: .shared, now: now)
        let gateway = ReloadableGateway(runtime: runtime, file: files.config, source: { try files.load() })
        return try await withServedGateway(gateway) { port in try await body(gateway, port) }
    }

    static func simulator() async throws -> RunningSimulator {
        try await EightAllsSimulator(
            options: .init(seedDay: LocalDate.today(in: zone).description, timeZone: zone)
        ).start()
    }

    /// One request on `client`'s connection and its answer (status and body, by
    /// Content-Length).
    static func exchange(_ client: RawClient, _ target: String) async throws -> (status: Int, body: JSONValue) {
        let start = client.received.count
        #expect(client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), "the connection is open")
        var answer: (status: Int, body: JSONValue)?
        await client.wait(timeout: .seconds(20)) { client in
            answer = parse(Array(client.received[start...]))
            return answer != nil || client.closed
        }
        return try #require(answer, "an answer to \(target) on the same connection")
    }

    private static func parse(_ bytes: [UInt8]) -> (status: Int, body: JSONValue)? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].split(separator: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.dropFirst(9).prefix(3)) else { return nil }
        let length =
            head.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        let bodyStart = text.utf8.distance(from: text.startIndex, to: end.upperBound)
        guard bytes.count >= bodyStart + length else { return nil }
        let body = Data(bytes[bodyStart..<(bodyStart + length)])
        return (status, (try? JSONDecoder().decode(JSONValue.self, from: body)) ?? .null)
    }

    /// `daygate_http_hot_answers_total`, read from `/metrics`.
    static func hotAnswers(_ port: Int) async throws -> Int {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 22))
        let line = text.split(separator: "\n").first { $0.hasPrefix("daygate_http_hot_answers_total ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    static func titles(_ answer: JSONValue) -> [String] {
        guard case .array(let events) = answer["events"] ?? .null else { return [] }
        return events.compactMap { $0["title"]?.stringValue }
    }

    /// A new route file and a new account (8alls at another address, where an event is gone)
    /// take effect on the connection that was open before the reload; what was cached for the
    /// old account is not served to the new one.
    @Test func aReloadServesNewRoutesAndTheNewAccountOnTheSameConnection() async throws {
        let before = try await Self.simulator()
        let after = try await Self.simulator()
        let files = try Files()
        defer { files.remove() }
        do {
            try files.writeConfig(eightalls: before.apiBaseURL)
            try await withGateway(files) { gateway, port in
                let client = try RawClient(port: port)
                defer { client.close() }
                let first = try await Self.exchange(client, "/v1/events")
                #expect(first.status == 200)
                let id = try #require(
                    first.body["events"]?.arrayValue?.first { $0["title"] == .string("Design review") }?["id"]?
                        .stringValue)
                #expect(try await Self.exchange(client, "/v1/agenda").status == 404)

                // The new account does not have that event.
                var request = HTTPClientRequest(url: after.apiBaseURL + "/events/\(id)")
                request.method = .DELETE
                let deleted = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
                #expect((200..<300).contains(Int(deleted.status.code)))

                let events = try String(contentsOf: files.routes.appendingPathComponent("events.yaml"), encoding: .utf8)
                try events.replacingOccurrences(of: "path: /v1/events", with: "path: /v1/agenda")
                    .write(to: files.routes.appendingPathComponent("agenda.yaml"), atomically: true, encoding: .utf8)
                try files.writeConfig(eightalls: after.apiBaseURL)
                let outcome = await gateway.reload()
                #expect(outcome.result == .applied)
                #expect(outcome.changes.contains("profiles.default.eightalls changed"))

                let agenda = try await Self.exchange(client, "/v1/agenda")
                #expect(agenda.status == 200)
                #expect(!Self.titles(agenda.body).isEmpty)
                #expect(!Self.titles(agenda.body).contains("Design review"))
                let again = try await Self.exchange(client, "/v1/events")
                #expect(again.status == 200)
                #expect(!Self.titles(again.body).contains("Design review"), "the old account's cached entry")
                #expect(!client.closed)

                let ready = try await Self.exchange(client, "/readyz")
                #expect(ready.body["config"]?["generation"] == .number(2))
                #expect(ready.body["config"]?["last_reload"]?["result"] == .string("applied"))
                #expect(ready.body["config"]?["file"] == .string(files.config))
                #expect(ready.body["status"] == .string("ready"))
            }
        } catch {
            await before.stop()
            await after.stop()
            throw error
        }
        await before.stop()
        await after.stop()
    }

    /// A broken config file or route file is reported with its file and line and changes
    /// nothing; fixing it and reloading again takes effect.
    @Test func anInvalidConfigOrRouteFileKeepsTheOldOneServing() async throws {
        let simulator = try await Self.simulator()
        let files = try Files()
        defer { files.remove() }
        do {
            try files.writeConfig(eightalls: simulator.apiBaseURL)
            try await withGateway(files) { gateway, port in
                let client = try RawClient(port: port)
                defer { client.close() }
                #expect(try await Self.exchange(client, "/v1/events").status == 200)

                try files.writeConfig(eightalls: simulator.apiBaseURL, timezone: "Mars/Olympus_Mons")
                let broken = await gateway.reload()
                #expect(broken.result == .failed)
                let problem = try #require(broken.problems.first)
                #expect(problem.file == files.config)
                #expect(problem.line == 3)
                #expect(problem.message.contains("timezone"))

                let ready = try await Self.exchange(client, "/readyz")
                #expect(ready.status == 200)
                #expect(ready.body["status"] == .string("degraded"))
                #expect(ready.body["config"]?["generation"] == .number(1))
                #expect(ready.body["config"]?["last_reload"]?["result"] == .string("failed"))
                #expect(ready.body["config"]?["last_reload"]?["errors"]?.arrayValue?.first?["line"] == .number(3))
                #expect(
                    ready.body["config"]?["last_reload"]?["errors"]?.arrayValue?.first?["file"] == .string(files.config)
                )
                #expect(try await Self.exchange(client, "/v1/events").status == 200)
                #expect(gateway.runtime.config.timezone == Self.zone.identifier)

                // A route file naming an operation nobody has.
                try files.writeConfig(eightalls: simulator.apiBaseURL, timezone: "Asia/Tokyo")
                let route = files.routes.appendingPathComponent("broken.yaml")
                try "path: /v1/broken\nsections:\n  x:\n    operation: nobody.nothing\n".write(
                    to: route, atomically: true, encoding: .utf8)
                let badRoute = await gateway.reload()
                #expect(badRoute.result == .failed)
                #expect(badRoute.problems.contains { $0.file?.hasSuffix("broken.yaml") == true && $0.line == 4 })
                #expect(gateway.runtime.config.timezone == Self.zone.identifier)

                try FileManager.default.removeItem(at: route)
                let fixed = await gateway.reload()
                #expect(fixed.result == .applied)
                #expect(fixed.changes == ["timezone"])
                #expect(gateway.runtime.config.timezone == "Asia/Tokyo")
                let readyAgain = try await Self.exchange(client, "/readyz")
                #expect(readyAgain.body["status"] == .string("ready"))
                #expect(readyAgain.body["config"]?["generation"] == .number(2))
                #expect(!client.closed)
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    /// A reloaded file that YAML cannot read (a key given twice) is reported on `/readyz` (open
    /// without a key) by problem, file and line. Yams' own message for it quotes the whole file:
    /// the new client keys, the feed key and the secret calendar address were all on `/readyz`.
    @Test func aConfigYAMLCannotReadIsReportedWithoutItsSecrets() async throws {
        let simulator = try await Self.simulator()
        let files = try Files()
        defer { files.remove() }
        let secrets = [
            "new-client-key-7d1e0c9b8a7f6e5d", "new-feed-key-3c2b1a0f9e8d7c6b", "private-91ad77e3c4/basic.ics",
        ]
        do {
            try files.writeConfig(eightalls: simulator.apiBaseURL)
            try await withGateway(files) { gateway, port in
                let client = try RawClient(port: port)
                defer { client.close() }
                let text = """
                    listen: 127.0.0.1:8787
                    state_dir: state
                    timezone: \(Self.zone.identifier)
                    static_dir: /nonexistent
                    clients:
                      - name: kitchen
                        key: \(secrets[0])
                        feed_key: \(secrets[1])
                    profiles:
                      default:
                        eightalls:
                          base_url: \(simulator.apiBaseURL)
                        ics:
                          calendars:
                            - name: school
                              url: https://calendar.example/\(secrets[2])
                    timezone: Europe/Paris

                    """
                try text.write(toFile: files.config, atomically: true, encoding: .utf8)
                let broken = await gateway.reload()
                #expect(broken.result == .failed)
                let problem = try #require(broken.problems.first)
                #expect(problem.file == files.config)
                #expect(problem.line == 3)
                #expect(problem.message.contains("'timezone' appears twice"))

                let start = client.received.count
                let ready = try await Self.exchange(client, "/readyz")
                let raw = String(decoding: client.received[start...], as: UTF8.self)
                #expect(ready.body["config"]?["last_reload"]?["result"] == .string("failed"))
                let error = ready.body["config"]?["last_reload"]?["errors"]?.arrayValue?.first
                #expect(error?["file"] == .string(files.config))
                #expect(error?["line"] == .number(3))
                for secret in secrets {
                    #expect(!raw.contains(secret))
                    #expect(!problem.description.contains(secret))
                }
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    /// Each connection's hot path takes the reloaded routes: an answer it kept for a route the
    /// reload removed is not given again on a connection opened before. The clock hardly moves,
    /// so the kept answer would still be reusable.
    @Test func aRouteRemovedByAReloadIsNotAnsweredFromTheHotPath() async throws {
        let simulator = try await Self.simulator()
        let files = try Files()
        defer { files.remove() }
        let clock = HotPathTests.SteppingClock()
        do {
            try files.writeConfig(eightalls: simulator.apiBaseURL)
            let agenda = files.routes.appendingPathComponent("agenda.yaml")
            try String(contentsOf: files.routes.appendingPathComponent("events.yaml"), encoding: .utf8)
                .replacingOccurrences(of: "path: /v1/events", with: "path: /v1/agenda")
                .write(to: agenda, atomically: true, encoding: .utf8)
            try await withGateway(files, now: { clock.read() }) { gateway, port in
                let client = try RawClient(port: port)
                defer { client.close() }
                // A miss, then a fresh hit (kept), then the kept answer from the hot path.
                for _ in 0..<3 {
                    #expect(try await Self.exchange(client, "/v1/agenda").status == 200)
                }
                #expect(try await Self.hotAnswers(port) == 1, "the third came from the hot path")

                try FileManager.default.removeItem(at: agenda)
                #expect(await gateway.reload().result == .applied)
                #expect(try await Self.exchange(client, "/v1/agenda").status == 404)
                #expect(try await Self.hotAnswers(port) == 1)
                #expect(!client.closed)
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    /// Calls `simulator` counted for `endpoint` (`/_sim/stats`).
    static func calls(_ simulator: RunningSimulator, _ endpoint: String) async throws -> Int {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: simulator.baseURL + "/_sim/stats"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        let stats = try JSONDecoder().decode(JSONValue.self, from: Data(buffer: body))
        if let count = stats["calls"]?[endpoint]?.numberValue { return Int(count) }
        return 0
    }

    /// The change hints (8alls' WebSocket) follow a reload that moves 8alls elsewhere.
    @Test func changeHintsFollowAReloadedAccount() async throws {
        let before = try await Self.simulator()
        let after = try await Self.simulator()
        let files = try Files()
        defer { files.remove() }
        do {
            try files.writeConfig(eightalls: before.apiBaseURL)
            try await withGateway(files) { gateway, _ in
                let hints = Task { try await BackendHintService(gateway: gateway).run() }
                defer { hints.cancel() }
                for _ in 0..<200 where try await Self.calls(before, "GET /ws") == 0 {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(try await Self.calls(before, "GET /ws") >= 1, "the hints listen to the first 8alls")
                #expect(try await Self.calls(after, "GET /ws") == 0)

                try files.writeConfig(eightalls: after.apiBaseURL)
                #expect(await gateway.reload().result == .applied)
                for _ in 0..<200 where try await Self.calls(after, "GET /ws") == 0 {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(try await Self.calls(after, "GET /ws") >= 1, "and then to the second")
            }
        } catch {
            await before.stop()
            await after.stop()
            throw error
        }
        await before.stop()
        await after.stop()
    }

    /// A new listen address waits for a restart: the gateway says so and serves on where it is.
    @Test func aNewListenAddressIsReportedAsWaitingForARestart() async throws {
        let simulator = try await Self.simulator()
        let files = try Files()
        defer { files.remove() }
        do {
            try files.writeConfig(eightalls: simulator.apiBaseURL)
            try await withGateway(files) { gateway, port in
                let config = try String(contentsOfFile: files.config, encoding: .utf8)
                try config.replacingOccurrences(of: "listen: 127.0.0.1:8787", with: "listen: 127.0.0.1:8788")
                    .write(toFile: files.config, atomically: true, encoding: .utf8)
                let outcome = await gateway.reload()
                #expect(outcome.result == .applied)
                #expect(outcome.restartRequired.map(\.setting) == ["listen"])
                let client = try RawClient(port: port)
                defer { client.close() }
                let ready = try await Self.exchange(client, "/readyz")
                let pending = ready.body["config"]?["restart_required"]?.arrayValue?.first
                #expect(pending?["setting"] == .string("listen"))
                #expect(pending?["running"] == .string("127.0.0.1:8787"))
                #expect(pending?["configured"] == .string("127.0.0.1:8788"))
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }
}
