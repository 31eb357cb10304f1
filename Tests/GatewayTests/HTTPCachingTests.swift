import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import Simulators
import Testing

/// What polling clients see: ETag and 304, Cache-Control, Age, Cache-Status (RFC 9211) and
/// Server-Timing, against the 8alls simulator.
@Suite("HTTP caching to clients")
struct HTTPCachingTests {
    static let ifNoneMatch = HTTPField.Name("If-None-Match")!
    static let cacheStatus = HTTPField.Name("Cache-Status")!
    static let serverTiming = HTTPField.Name("Server-Timing")!

    @Test func unchangedDataAnswers304UntilItChanges() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                let first = try await client.execute(uri: "/v1/events", method: .get)
                let tag = try #require(first.headers[.eTag])
                #expect(
                    tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.hasPrefix("W/"), "a strong validator, got \(tag)"
                )

                // Same data a moment later (age and cache outcome differ): same tag, 304, no body.
                try await Task.sleep(for: .milliseconds(1100))
                let again = try await client.execute(uri: "/v1/events", method: .get, headers: [Self.ifNoneMatch: tag])
                #expect(again.status == .notModified)
                #expect(again.body.readableBytes == 0)
                #expect(again.headers[.eTag] == tag)
                #expect(again.headers[.cacheControl]?.hasPrefix("private, max-age=") == true)
                #expect(again.headers[.age] != nil)
                #expect(again.headers[Self.cacheStatus]?.contains("hit") == true)

                // Lists, W/ and * follow RFC 9110's weak comparison.
                for condition in ["\"nope\", \(tag)", "W/\(tag)", "*"] {
                    let response = try await client.execute(
                        uri: "/v1/events", method: .get, headers: [Self.ifNoneMatch: condition])
                    #expect(response.status == .notModified, "If-None-Match: \(condition)")
                }
                let other = try await client.execute(
                    uri: "/v1/events", method: .get, headers: [Self.ifNoneMatch: "\"nope\""])
                #expect(other.status == .ok)
                #expect(other.headers[.eTag] == tag)

                // The data changes upstream; a no-cache refetch sees it: new tag, and the old one gets a 200.
                let events = try #require(first.json["events"]?.arrayValue)
                let victim = try #require(events.first?["id"]?.stringValue)
                _ = try? await harness.simulatorCall(.DELETE, "/api/events/\(victim)")
                let refreshed = try await client.execute(
                    uri: "/v1/events", method: .get, headers: [.cacheControl: "no-cache", Self.ifNoneMatch: tag])
                #expect(refreshed.status == .ok)
                #expect(refreshed.headers[.eTag] != tag)
                #expect(try refreshed.json["events"]?.arrayValue?.count == events.count - 1)
                #expect(refreshed.headers[Self.cacheStatus]?.contains("fwd=request") == true)
                #expect(refreshed.headers[Self.cacheStatus]?.contains("stored") == true)
            }
        }
    }

    @Test func cacheStatusAndServerTimingDescribeEachSection() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                let cold = try await client.execute(uri: "/v1/events?date=2026-11-20", method: .get)
                let coldStatus = try #require(cold.headers[Self.cacheStatus])
                #expect(coldStatus.hasPrefix("daygate; fwd=miss; stored; ttl="), "got \(coldStatus)")
                #expect(coldStatus.contains(#"detail="events=miss""#))
                let timing = try #require(cold.headers[Self.serverTiming])
                #expect(timing.hasPrefix("events;dur="), "got \(timing)")
                #expect(timing.contains(#"desc="eightalls miss""#))

                let warm = try await client.execute(uri: "/v1/events?date=2026-11-20", method: .get)
                let warmStatus = try #require(warm.headers[Self.cacheStatus])
                #expect(warmStatus.hasPrefix("daygate; hit; ttl="), "got \(warmStatus)")
                let ttl = try #require(
                    warmStatus.split(separator: ";").first { $0.contains("ttl=") }.flatMap {
                        Int($0.split(separator: "=")[1])
                    })
                #expect((55...60).contains(ttl), "events are fresh for 60 s, got ttl=\(ttl)")
                let maxAge = try #require(warm.headers[.cacheControl]).replacingOccurrences(
                    of: "private, max-age=", with: "")
                #expect(Int(maxAge) == ttl)
            }
        }
    }

    @Test func staleAnswersSayNoCacheAndFwdStale() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                _ = try await client.execute(uri: "/v1/events", method: .get)
                _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"error_status":500}"#)
                let stale = try await client.execute(
                    uri: "/v1/events", method: .get, headers: [.cacheControl: "no-cache"])
                #expect(stale.status == .ok)
                #expect(stale.headers[.cacheControl] == "private, no-cache")
                #expect(
                    stale.headers[Self.cacheStatus]?.hasPrefix("daygate; fwd=stale") == true,
                    "got \(stale.headers[Self.cacheStatus] ?? "")")
                #expect(try stale.json["sections"]?["events"]?["status"] == .string("stale"))
            }
        }
    }

    @Test func concurrentNoCacheRequestsShareOneRefetch() async throws {
        try await withHarness { harness in
            try await harness.test { client in
                _ = try await client.execute(uri: "/v1/events", method: .get)
                #expect(try await harness.eventsCalls() == 1)
                _ = try await harness.simulatorCall(.POST, "/_sim/faults", json: #"{"latency_ms":300}"#)
                let statuses = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<30 {
                        group.addTask {
                            let response = try await client.execute(
                                uri: "/v1/events", method: .get, headers: [.cacheControl: "no-cache"])
                            return response.headers[Self.cacheStatus] ?? ""
                        }
                    }
                    var all: [String] = []
                    for try await status in group { all.append(status) }
                    return all
                }
                #expect(try await harness.eventsCalls() == 2, "30 no-cache requests, one refetch")
                #expect(statuses.filter { $0.contains("collapsed") }.count == 29)
            }
        }
    }
}
