import AsyncHTTPClient
import Backends
import Foundation
import Model
import Simulators
import Testing

/// An id from a client goes into an upstream path as one segment: `/`, `..`, `?` and `#`
/// cannot change which upstream route is called.
@Suite("Path arguments upstream")
struct PathSegmentTests {
    static let hostile = [
        "../../api/auth/login", "..", ".", "a/b", "x?admin=1", "x#y", "%2F..%2F", "a\\b", "ü nicode", "\u{0}",
    ]

    @Test func everyHostileIDStaysOneSegment() {
        for id in Self.hostile {
            let segment = QueryString.pathSegment(id)
            #expect(
                !segment.contains("/") && !segment.contains("?") && !segment.contains("#") && !segment.contains("\\"),
                "\(id) → \(segment)")
            #expect(segment != "." && segment != "..", "\(id) → \(segment)")
            #expect(segment.removingPercentEncoding == id, "reversible: \(id)")
        }
    }

    /// Against the PRSNL simulator: every hostile id reaches `/api/items/…` and nothing else.
    @Test func theSimulatorOnlySeesTheItemsRoute() async throws {
        let simulator = try await PRSNLSimulator(options: .init()).start()
        for id in Self.hostile {
            let request = HTTPClientRequest(url: simulator.apiBaseURL + "/api/items/" + QueryString.pathSegment(id))
            _ = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        }
        let calls = simulator.control.callCounts
        await simulator.stop()
        #expect(calls.values.reduce(0, +) == Self.hostile.count)
        for key in calls.keys {
            #expect(key.hasPrefix("GET /api/items/"), "the simulator saw \(key)")
        }
    }
}
