import AsyncHTTPClient
import Backends
import Cache
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

/// One single-use refresh token, two processes: the gateway and `daygate check` open the same
/// state database, each with its own sessions. Without a lease across them both present the
/// token; FitIQ rotates it for the first and, for the second, answers "revoked" and revokes
/// the whole login. With the vault's lease the second waits, reads the rotated token and
/// refreshes with that.
@Suite("Vault lease")
struct VaultLeaseTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let day = LocalDate(year: 2026, month: 11, day: 23)

    /// A context of its own process: its own database on `folder`, its own sessions.
    static func process(_ settings: FitIQSettings, folder: String) throws -> OperationContext {
        OperationContext(
            profileName: "default", profile: ProfileConfig([settings]),
            clock: RequestClock(now: Date(), timeZone: zone),
            http: UpstreamHTTP(client: .shared),
            sessions: SessionRegistry(
                vault: SQLiteCredentialVault(database: try CacheDatabase(stateDirectory: folder))),
            logger: Logger(label: "test"))
    }

    static func post(_ sim: RunningSimulator, _ path: String, json: String = "{}") async throws -> JSONValue {
        var request = HTTPClientRequest(url: sim.baseURL + path)
        request.method = .POST
        request.headers.add(name: "X-API-Key", value: FitIQSimulator.demoAPIKey)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))) ?? .null
    }

    @Test(.timeLimit(.minutes(1))) func twoProcessesRefreshingOneTokenBothKeepTheLogin() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-lease-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sim = try await FitIQSimulator(options: .init(seedDay: Self.day.description, timeZone: Self.zone)).start()
        do {
            let login = try await Self.post(
                sim, "/api/v1/auth/login",
                json: #"{"email":"\#(FitIQSimulator.demoEmail)","password":"\#(FitIQSimulator.demoPassword)"}"#)
            let refresh = try #require(login["data"]?["refresh_token"]?.stringValue)
            // A refresh-token-only account: a refused refresh cannot fall back to a password.
            let settings = FitIQSettings(
                endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), apiKey: Secret(FitIQSimulator.demoAPIKey),
                refreshToken: Secret(refresh))
            // Two "processes": a database each on one state folder, sessions each.
            let contexts = try (0..<2).map { _ in try Self.process(settings, folder: folder) }
            // Both refresh at once: FitIQ is slow to answer, so the two would overlap.
            sim.control.setFaults(SimulatorFaults(latencyMs: 300, method: "POST"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for context in contexts {
                    group.addTask {
                        _ = try await FitIQNutritionOperation().fetch(["date": .date(Self.day)], context: context)
                    }
                }
                try await group.waitForAll()
            }
            sim.control.clearFaults()
            #expect(sim.control.calls("POST /api/v1/auth/refresh") == 2)
            // The kept token still works: a third process refreshes with it.
            _ = try await Self.post(sim, "/_sim/tokens/expire")
            let third = try Self.process(settings, folder: folder)
            _ = try await FitIQNutritionOperation().fetch(["date": .date(Self.day)], context: third)
        } catch {
            await sim.stop()
            throw error
        }
        await sim.stop()
    }
}
