import Aggregation
import Backends
import Cache
import Foundation
import Model
import Synchronization
import Testing

/// An operation with no arguments of its own that answers with the day its request calls today,
/// as an operation defaulting to "today" does.
private struct TodayOperation: BackendOperation {
    let name = "test.today"
    let backend = "clockwork"
    var defaultTTL: TimeInterval { 60 }
    var bodySchema: SchemaComponent { .anyJSON }
    var arguments: [OperationArgument] { [OperationArgument("date", .date)] }
    func isConfigured(for profile: ProfileConfig) -> Bool { true }
    func credentialFingerprint(for profile: ProfileConfig) -> String { "none" }
    func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        ["date": arguments["date"] ?? .date(clock.today)]
    }

    func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let asked = arguments["date"]?.date?.description ?? "none"
        return OperationOutput(body: Data(#"{"asked":"\#(asked)","today":"\#(context.today)"}"#.utf8))
    }
}

/// A clock that moves one second on every reading.
private final class TickingClock: Sendable {
    private let next: Mutex<Date>
    init(_ start: Date) { next = Mutex(start) }
    func read() -> Date {
        next.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}

@Suite("One now per request")
struct RequestClockTests {
    @Test(arguments: ["Europe/Amsterdam", "America/Los_Angeles", "Pacific/Auckland"])
    func aRequestStraddlingMidnightIsAnsweredForOneDay(zoneName: String) async throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        // Half a second before local midnight: any second reading of the clock is the next day.
        let midnight = try #require(LocalDate("2026-11-24")).start(in: zone)
        let clock = TickingClock(midnight - 0.5)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-clock-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = DaygateConfig(stateDir: folder, timezone: zoneName, profiles: ["default": ProfileConfig()])
        let store = CacheStore(
            database: try CacheDatabase(stateDirectory: folder), maxBytes: 1_048_576, memoryBytes: 1_048_576)
        let route = try RouteLoader(registry: OperationRegistry([TodayOperation()])).parse(
            """
            path: /v1/clock
            parameters:
              date: { type: date, default: today }
            sections:
              given: { operation: test.today, arguments: { date: $date } }
              defaulted: { operation: test.today }
            """, file: "clock.yaml")
        let aggregator = Aggregator(
            config: config, cache: store, http: UpstreamHTTP(client: .shared),
            sessions: SessionRegistry(vault: MemoryCredentialVault()), now: { clock.read() })

        let answer = try await aggregator.run(route: route, query: [], profileName: "default")
        let body = try JSONDecoder().decode(JSONValue.self, from: answer.body)
        for section in ["given", "defaulted"] {
            #expect(body[section]?["asked"] == .string("2026-11-23"), "\(section) in \(zoneName)")
            #expect(body[section]?["today"] == .string("2026-11-23"), "\(section) in \(zoneName)")
        }
    }
}
