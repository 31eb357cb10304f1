import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import Testing

@testable import daygate

/// Bad input is a clear 400 naming the parameter, never a crash or an upstream call.
@Suite("Hostile input")
struct HostileInputTests {
    @Test func boundsAreEnforcedBeforeAnyBackendIsAsked() async throws {
        try await withDemo { demo in
            let cases: [(String, String)] = [
                ("/v1/events?date=2026-1-1", "date must be a date YYYY-MM-DD"),
                ("/v1/events?date=2026-02-30", "date must be a date YYYY-MM-DD"),
                ("/v1/events?date=%2B2026-01-01", "date must be a date YYYY-MM-DD"),
                ("/v1/events?date=2026-11-22T00:00:00Z", "date must be a date YYYY-MM-DD"),
                ("/v1/events?from=2026-01-01&to=2027-01-02", "at most 366"),
                ("/v1/events?from=2026-02-01&to=2026-01-01", "before from"),
                ("/v1/diensten?future_days=365", "future_days"),
                ("/v1/diensten?past_days=-1", "past_days"),
                ("/v1/fitness?from=2025-01-01&to=2026-06-01", "366"),
                ("/v1/knowledge/search?q=" + String(repeating: "a", count: 201), "at most 200"),
                ("/v1/knowledge/search?q=%01", "q"),
                ("/v1/knowledge/recent?limit=101", "at most 100"),
                ("/v1/knowledge/recent?limit=0", "at least 1"),
                ("/v1/knowledge/recent?limit=1e3", "whole number"),
                ("/v1/tasks?list=../../api/auth/login", "list must be one of"),
                ("/v1/events?date=2026-11-22&date=2026-11-23", "more than once"),
                ("/v1/events?%zz=1", "malformed"),
                ("/v1/events?nonsense=1", "unknown parameter"),
                ("/v1/leaderboard?tenant=nope", "no enrollment at tenant nope; known: agovv, vvwilhelmus"),
            ]
            let before = demo.simulators.running.reduce(0) { $0 + $1.control.callCounts.values.reduce(0, +) }
            try await demo.test { client in
                for (uri, expected) in cases {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .badRequest, "\(uri)")
                    let message = try response.json["error"]?["message"]?.stringValue ?? ""
                    #expect(message.contains(expected), "\(uri) → \(message)")
                    #expect(try response.json["error"]?["code"] == .string("bad_parameter"), "\(uri)")
                    #expect(message.count <= 300)
                }
            }
            let after = demo.simulators.running.reduce(0) { $0 + $1.control.callCounts.values.reduce(0, +) }
            #expect(after == before, "no bad request reached a backend")
        }
    }
}
