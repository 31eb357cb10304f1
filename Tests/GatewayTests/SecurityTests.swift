import AsyncHTTPClient
import Backends
import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

@testable import daygate

/// Two households members, each with their own 8alls: keys pick profiles, and nothing of one
/// reaches the other; plus the loopback protections, CORS, limits and static files.
@Suite("Security")
struct SecurityTests {
    static let annaKey = "anna-key-0123456789abcdef"
    static let benKey = "ben-key-fedcba9876543210"
    static let benOnly = "Ben's dentist appointment"

    /// A gateway with profiles `default` (Anna) and `ben`, each on its own 8alls simulator.
    final class TwoProfiles: Sendable {
        let anna: RunningSimulator
        let ben: RunningSimulator
        let runtime: GatewayRuntime
        let stateDir: String

        init(clients: Bool = true, cors: [String] = [], allowedHosts: [String] = [], staticDir: String = "/nonexistent")
            async throws
        {
            let zone = GatewayHarness.zone
            let seed = LocalDate.today(in: zone).description
            anna = try await EightAllsSimulator(options: .init(seedDay: seed, timeZone: zone)).start()
            ben = try await EightAllsSimulator(options: .init(seedDay: seed, timeZone: zone)).start()
            stateDir =
                FileManager.default.temporaryDirectory.appendingPathComponent("daygate-sec-\(UUID().uuidString)").path
            let config = DaygateConfig(
                stateDir: stateDir, timezone: zone.identifier, routesDir: GatewayHarness.routesDir,
                staticDir: staticDir,
                profiles: [
                    "default": ProfileConfig([EightAllsSettings(endpoint: BackendEndpoint(baseURL: anna.apiBaseURL))]),
                    "ben": ProfileConfig([EightAllsSettings(endpoint: BackendEndpoint(baseURL: ben.apiBaseURL))]),
                ],
                clients: clients
                    ? [
                        ClientConfig(name: "anna-phone", key: annaKey, profile: "default"),
                        ClientConfig(name: "ben-laptop", key: benKey, profile: "ben"),
                    ]
                    : [],
                cors: CORSSettings(origins: cors), allowedHosts: allowedHosts
            )
            runtime = try GatewayRuntime(config: config, httpClient: .shared)
            // Something only Ben's calendar has, today: at noon of the local day (an hour from
            // now was tomorrow after 23:00 in Amsterdam, and the test failed every evening).
            let start = LocalDate.today(in: zone).date(hour: 12, minute: 0, second: 0, in: zone)
            var request = HTTPClientRequest(url: ben.apiBaseURL + "/events")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            let body =
                #"{"title":"\#(benOnly)","start_time":"\#(LenientDate.format(start, in: .gmt))","end_time":"\#(LenientDate.format(start.addingTimeInterval(1800), in: .gmt))"}"#
            request.body = .bytes(ByteBuffer(string: body))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            #expect(response.status == .created)
        }

        func close() async {
            await anna.stop()
            await ben.stop()
            await runtime.shutdown()
            try? FileManager.default.removeItem(atPath: stateDir)
        }

        func test<Value: Sendable>(
            _ mode: TestingSetup = .router, _ body: @Sendable (any TestClientProtocol) async throws -> Value
        ) async throws -> Value {
            // Heartbeats every 200 ms, so a stream reader gets a chunk at least that often.
            try await GatewayApplication.make(runtime: runtime, heartbeat: .milliseconds(200)).test(mode, body)
        }
    }

    static func with<Value: Sendable>(
        clients: Bool = true, cors: [String] = [], allowedHosts: [String] = [], staticDir: String = "/nonexistent",
        _ body: (TwoProfiles) async throws -> Value
    ) async throws -> Value {
        let setup = try await TwoProfiles(
            clients: clients, cors: cors, allowedHosts: allowedHosts, staticDir: staticDir)
        do {
            let value = try await body(setup)
            await setup.close()
            return value
        } catch {
            await setup.close()
            throw error
        }
    }

    static func bearer(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

    @Test func keysAreRequiredAndPickTheProfile() async throws {
        try await Self.with { setup in
            try await setup.test { client in
                for headers: HTTPFields in [
                    [:], Self.bearer("not-a-key-at-all-000000"), [.authorization: "Basic \(Self.annaKey)"],
                    Self.bearer(Self.annaKey + "x"),
                ] {
                    let response = try await client.execute(uri: "/v1/events", method: .get, headers: headers)
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="daygate""#)
                    #expect(try response.json["error"]?["code"] == .string("unauthorized"))
                }
                for path in ["/v1/sources", "/v1/summary", "/v1/stream", "/metrics"] {
                    #expect(try await client.execute(uri: path, method: .get).status == .unauthorized, "\(path)")
                }
                for path in ["/healthz", "/readyz", "/openapi.json"] {
                    #expect(try await client.execute(uri: path, method: .get).status == .ok, "\(path) needs no key")
                }
                let anna = try await client.execute(uri: "/v1/events", method: .get, headers: Self.bearer(Self.annaKey))
                    .json
                let ben = try await client.execute(uri: "/v1/events", method: .get, headers: Self.bearer(Self.benKey))
                    .json
                let titles = { (body: JSONValue) in
                    body["events"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
                }
                #expect(titles(ben).contains(Self.benOnly))
                #expect(!titles(anna).contains(Self.benOnly))
                #expect(!titles(anna).isEmpty)
                #expect(
                    try await client.execute(uri: "/metrics", method: .get, headers: Self.bearer(Self.benKey)).status
                        == .ok)
            }
        }
    }

    /// Anna's key gets nothing of Ben's: not through any route, not a 304 on Ben's ETag, not in
    /// /v1/sources, not on her change stream.
    @Test func oneProfileNeverSeesAnothersData() async throws {
        try await Self.with { setup in
            try await setup.test(.live) { client in
                let benEvents = try await client.execute(
                    uri: "/v1/events", method: .get, headers: Self.bearer(Self.benKey))
                let benTag = try #require(benEvents.headers[.eTag])
                for uri in ["/v1/events", "/v1/today", "/v1/summary", "/v1/sources"] {
                    let response = try await client.execute(uri: uri, method: .get, headers: Self.bearer(Self.annaKey))
                    #expect(response.status == .ok)
                    #expect(!String(buffer: response.body).contains(Self.benOnly), "\(uri)")
                }
                var conditional = Self.bearer(Self.annaKey)
                conditional[HTTPField.Name("If-None-Match")!] = benTag
                let revalidated = try await client.execute(uri: "/v1/events", method: .get, headers: conditional)
                #expect(revalidated.status == .ok, "Ben's ETag is not Anna's data")
                #expect(!String(buffer: revalidated.body).contains(Self.benOnly))

                let sources = try await client.execute(
                    uri: "/v1/sources", method: .get, headers: Self.bearer(Self.annaKey)
                ).json
                #expect(sources["profile"] == .string("default"))
                let benSources = try await client.execute(
                    uri: "/v1/sources", method: .get, headers: Self.bearer(Self.benKey)
                ).json
                #expect(benSources["profile"] == .string("ben"))
                #expect(benSources["sources"]?["eightalls"]?["calls"] == .number(1))
                #expect(sources["sources"]?["eightalls"]?["calls"] == .number(2), "Anna's own /v1/events and /v1/today")

                // Anna's stream: Ben's refetch first, then Anna's; she is told of hers only.
                let port = try #require(client.port)
                let stream = Task { try await Self.readStream(port: port, key: Self.annaKey, for: 4) }
                try await Task.sleep(for: .milliseconds(500))
                try await Self.deleteFirstEvent(of: setup.ben)
                _ = try await client.execute(
                    uri: "/v1/events", method: .get,
                    headers: Self.bearer(Self.benKey).merging([.cacheControl: "no-cache"]))
                try await Task.sleep(for: .milliseconds(500))
                try await Self.deleteFirstEvent(of: setup.anna)
                _ = try await client.execute(
                    uri: "/v1/events", method: .get,
                    headers: Self.bearer(Self.annaKey).merging([.cacheControl: "no-cache"]))
                let text = try await stream.value
                #expect(text.contains(#""profile":"default""#), "hello names Anna's profile: \(text)")
                #expect(text.components(separatedBy: "event: change").count - 1 == 1, "exactly Anna's change: \(text)")
            }
        }
    }

    /// Loopback mode (no keys): a `Host` that is not this machine is refused — a page whose DNS
    /// name was rebound to 127.0.0.1 cannot read the household's data.
    @Test func loopbackModeChecksTheHostHeader() async throws {
        try await Self.with(clients: false, allowedHosts: ["daygate.lan"]) { setup in
            try await setup.test(.live) { client in
                let port = try #require(client.port)
                func status(host: String) async throws -> (Int, JSONValue) {
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/events")
                    request.headers.replaceOrAdd(name: "Host", value: host)
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                    let body = try await response.body.collect(upTo: 1 << 20)
                    return (
                        Int(response.status.code),
                        (try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))) ?? .null
                    )
                }
                for host in [
                    "localhost:\(port)", "127.0.0.1:\(port)", "127.0.0.1", "[::1]:\(port)", "LOCALHOST",
                    "daygate.lan:\(port)", "app.localhost",
                ] {
                    #expect(try await status(host: host).0 == 200, "Host: \(host)")
                }
                for host in [
                    "evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "localhost.evil.example",
                    "[::2]:\(port)", "128.0.0.1",
                ] {
                    let (code, body) = try await status(host: host)
                    #expect(code == 403, "Host: \(host)")
                    #expect(body["error"]?["code"] == .string("host_not_allowed"))
                }
            }
        }
    }

    @Test func writesNeedJSONAndBodiesAndHeadersAreBounded() async throws {
        try await Self.with(clients: false) { setup in
            try await setup.test { client in
                for type in [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
                    as [String?]
                {
                    var headers: HTTPFields = [:]
                    if let type { headers[.contentType] = type }
                    let response = try await client.execute(
                        uri: "/v1/tasks", method: .post, headers: headers, body: ByteBuffer(string: "title=x"))
                    #expect(response.status == .unsupportedMediaType, "Content-Type: \(type ?? "none")")
                    #expect(try response.json["error"]?["code"] == .string("unsupported_media_type"))
                }
                let json = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: [.contentType: "application/json; charset=utf-8"],
                    body: ByteBuffer(string: "{}"))
                #expect(json.status != .unsupportedMediaType)

                let big = try await client.execute(
                    uri: "/v1/tasks", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: "[" + String(repeating: "1,", count: 40_000) + "1]")
                )
                #expect(big.status == .contentTooLarge)
                #expect(try big.json["error"]?["code"] == .string("body_too_large"))

                var many = HTTPFields()
                for index in 0..<150 { many[HTTPField.Name("X-Filler-\(index)")!] = "1" }
                let crowded = try await client.execute(uri: "/v1/events", method: .get, headers: many)
                #expect(crowded.status.code == 431)
                let huge = try await client.execute(
                    uri: "/v1/events", method: .get,
                    headers: [HTTPField.Name("X-Huge")!: String(repeating: "a", count: 40_000)])
                #expect(huge.status.code == 431)
                #expect(try huge.json["error"]?["code"] == .string("headers_too_large"))
            }
        }
    }

    @Test func corsOnlyForListedOrigins() async throws {
        let listed = "https://ha.example.org:8123"
        try await Self.with(cors: [listed]) { setup in
            try await setup.test { client in
                let preflight = try await client.execute(
                    uri: "/v1/events", method: .options,
                    headers: [
                        .origin: listed, .accessControlRequestMethod: "GET",
                        .accessControlRequestHeaders: "authorization",
                    ])
                #expect(preflight.status == .noContent)
                #expect(preflight.headers[.accessControlAllowOrigin] == listed)
                #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)
                #expect(preflight.headers[.accessControlAllowMethods]?.contains("GET") == true)

                let refused = try await client.execute(
                    uri: "/v1/events", method: .options,
                    headers: [
                        .origin: "https://evil.example", .accessControlRequestMethod: "GET",
                    ])
                #expect(refused.status == .forbidden)
                #expect(refused.headers[.accessControlAllowOrigin] == nil)

                var headers = Self.bearer(Self.annaKey)
                headers[.origin] = listed
                let allowed = try await client.execute(uri: "/v1/events", method: .get, headers: headers)
                #expect(allowed.headers[.accessControlAllowOrigin] == listed)
                #expect(allowed.headers[.accessControlExposeHeaders]?.contains("ETag") == true)
                let unauthorized = try await client.execute(uri: "/v1/events", method: .get, headers: [.origin: listed])
                #expect(unauthorized.status == .unauthorized)
                #expect(
                    unauthorized.headers[.accessControlAllowOrigin] == listed,
                    "the page can read the 401 and ask for a key")

                headers[.origin] = "https://evil.example"
                let other = try await client.execute(uri: "/v1/events", method: .get, headers: headers)
                #expect(other.headers[.accessControlAllowOrigin] == nil)
            }
        }
        // Without cors.origins nobody gets CORS headers.
        try await Self.with { setup in
            try await setup.test { client in
                let preflight = try await client.execute(
                    uri: "/v1/events", method: .options,
                    headers: [
                        .origin: "http://localhost:3000", .accessControlRequestMethod: "GET",
                    ])
                #expect(preflight.status == .forbidden)
            }
        }
    }

    @Test func staticFilesStayInsideStaticWithTheRightTypes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-static-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("static")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data("<!doctype html><title>t</title>".utf8).write(to: folder.appendingPathComponent("index.html"))
        try Data("export const x = 1;".utf8).write(to: folder.appendingPathComponent("app.js"))
        try Data("body{}".utf8).write(to: folder.appendingPathComponent("styles.css"))
        try Data("HIDDEN".utf8).write(to: folder.appendingPathComponent(".env"))
        try Data("HIDDEN".utf8).write(to: folder.appendingPathComponent(".git/config"))
        try Data("OUTSIDE".utf8).write(to: root.appendingPathComponent("secret.txt"))
        defer { try? FileManager.default.removeItem(at: root) }
        try await Self.with(clients: false, staticDir: folder.path) { setup in
            try await setup.test(.live) { client in
                let index = try await client.execute(uri: "/", method: .get)
                #expect(index.status == .ok)
                #expect(index.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(index.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                #expect(index.headers[.xContentTypeOptions] == "nosniff")
                #expect(
                    try await client.execute(uri: "/app.js", method: .get).headers[.contentType]?.contains("javascript")
                        == true)
                #expect(
                    try await client.execute(uri: "/styles.css", method: .get).headers[.contentType]?.hasPrefix(
                        "text/css") == true)
                for uri in [
                    "/.env", "/.git/config", "/%2egit/config", "/../secret.txt", "/%2e%2e/secret.txt",
                    "/static/../../secret.txt",
                    "/..%2fsecret.txt", "/..%5csecret.txt", "/app.js%00.html", "/./.env",
                ] {
                    let response = try await client.execute(uri: uri, method: .get)
                    let body = String(buffer: response.body)
                    #expect(
                        response.status == .notFound || response.status == .badRequest, "\(uri) → \(response.status)")
                    #expect(!body.contains("HIDDEN") && !body.contains("OUTSIDE"), "\(uri)")
                    #expect((try? response.json["error"]?["code"]) != nil, "\(uri) answers JSON")
                }
            }
        }
    }

    @Test func aNonLoopbackAddressNeedsKeys() async throws {
        let config = DaygateConfig(
            listen: ListenAddress(host: "0.0.0.0", port: 0), stateDir: "/nonexistent",
            routesDir: GatewayHarness.routesDir,
            profiles: ["default": ProfileConfig()]
        )
        do {
            try await GatewayRunner(config: config, logger: Logger(label: "test")).run { _ in }
            Issue.record("it must refuse")
        } catch let error as FailureMessage {
            #expect(error.text.contains("refusing to listen on 0.0.0.0:0"))
            #expect(error.text.contains("clients:"))
        }
    }

    @Test func aConfigReadableByOthersIsWarnedAbout() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-\(UUID().uuidString).yaml")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("profiles: {}".utf8), attributes: [.posixPermissions: 0o644]))
        #expect(ConfigFile.permissionWarnings(path).first?.contains("chmod 600") == true)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(ConfigFile.permissionWarnings(path).isEmpty)
    }

    static func deleteFirstEvent(of simulator: RunningSimulator) async throws {
        let day = LocalDate.today(in: GatewayHarness.zone).interval(in: GatewayHarness.zone)
        let query = EightAllsClient.eventsQuery(start: day.start, end: day.end, eventType: nil, status: nil)
        let list = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: simulator.apiBaseURL + "/events?" + query), timeout: .seconds(5))
        let events = try JSONDecoder().decode(
            [JSONValue].self, from: Data(try await list.body.collect(upTo: 1 << 20).readableBytesView))
        let first: JSONValue? = events.first?["id"]
        let id = try #require(first?.stringValue ?? first?.numberValue.map { String(Int($0)) })
        var delete = HTTPClientRequest(url: simulator.apiBaseURL + "/events/\(id)")
        delete.method = .DELETE
        _ = try await HTTPClient.shared.execute(delete, timeout: .seconds(5))
    }

    /// Reads `/v1/stream` with `key` for about `seconds` and returns what arrived (the
    /// test's 200 ms heartbeats make sure a chunk comes often enough to stop on time).
    static func readStream(port: Int, key: String, for seconds: Int64) async throws -> String {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/stream")
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let deadline = ContinuousClock.now + .seconds(seconds)
        var text = ""
        for try await chunk in response.body {
            text += String(buffer: chunk)
            if ContinuousClock.now >= deadline { break }
        }
        return text
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var result = self
        for field in other { result[field.name] = field.value }
        return result
    }
}
