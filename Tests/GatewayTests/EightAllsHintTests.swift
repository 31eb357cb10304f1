import Cache
import Foundation
import Gateway
import HummingbirdTesting
import Model
import Simulators
import Testing

@Suite("8alls websocket hints")
struct EightAllsHintTests {
    @Test func aDeleteOnTheBackendReachesCachedEventsWithinSeconds() async throws {
        try await withDemo { demo in
            let first = try await demo.test { client in try await client.execute(uri: "/v1/events", method: .get).json }
            let events = try #require(first["events"]?.arrayValue)
            let victim = try #require(events.first { $0["title"] == .string("Design review") }?["id"]?.stringValue)

            let changes = demo.runtime.cache.changes.subscribe()
            let service = Task { try await BackendHintService(runtime: demo.runtime).run() }
            defer { service.cancel() }
            for _ in 0..<100 where demo.calls(.eightalls, "GET /ws") == 0 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(demo.calls(.eightalls, "GET /ws") >= 1, "the gateway connected to /ws")
            try await Task.sleep(for: .milliseconds(200))

            _ = try await demo.call(.eightalls, .DELETE, "/api/events/\(victim)")
            let hinted = try await withThrowingTaskGroup(of: CacheChange?.self) { group in
                group.addTask {
                    for await change in changes where change.operation == "eightalls.events" { return change }
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            #expect(hinted?.kind == .invalidated)

            // The entry was kept (served while refetching), then replaced by the refetch.
            try await demo.test { client in
                let stale = try await client.execute(uri: "/v1/events", method: .get).json
                #expect(stale["sections"]?["events"]?["cache"] == .string("stale"))
                var ids: [String] = []
                for _ in 0..<50 {
                    let body = try await client.execute(uri: "/v1/events", method: .get).json
                    ids = body["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                    if !ids.contains(victim) { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(!ids.contains(victim))
            }
        }
    }
}
