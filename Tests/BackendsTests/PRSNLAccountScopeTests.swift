import Foundation
import Model
import NIOHTTP1
import Simulators
import Testing

@testable import Backends

/// What of PRSNL's every-account answers reaches a profile: only its own items, none skipped.
@Suite("PRSNL account scope")
struct PRSNLAccountScopeTests {
    static let zone = PRSNLCapturesTests.zone
    static var clock: RequestClock { RequestClock(now: Date(), timeZone: zone) }

    static func importItems(
        _ sim: RunningSimulator, user: String, count: Int, title: String, at: String? = nil,
        fingerprint: String? = nil
    ) async throws -> [String] {
        var body = #"{"user":"\#(user)","count":\#(count),"title":"\#(title)""#
        if let at { body += #","at":"\#(at)""# }
        if let fingerprint { body += #","content_fingerprint":"\#(fingerprint)""# }
        let json = body + "}"
        let answer = try await SimulatorBackedTest.call(sim, .POST, "/_sim/import", json: json)
        return answer["ids"]?.arrayValue?.compactMap { $0.stringValue } ?? []
    }

    static func search(_ query: String, limit: Int = 10, _ context: OperationContext) async throws -> [KnowledgeItem] {
        let operation = PRSNLSearchOperation()
        let output = try await operation.fetch(
            try operation.normalise(["q": .string(query), "limit": .int(limit)], clock: clock), context: context)
        return try JSONDecoder().decode([KnowledgeItem].self, from: output.body)
    }

    /// PRSNL's keyword search reads every account's items; the profile sees its own only.
    @Test func searchShowsOnlyTheAccountsOwnItems() async throws {
        try await PRSNLCapturesTests.withSimulator { sim, context in
            let own = try await Self.importItems(sim, user: "demo", count: 2, title: "Gedeeld recept")
            _ = try await Self.importItems(sim, user: "test", count: 3, title: "Gedeeld recept")
            _ = try await Self.importItems(
                sim, user: "0d9f3c6e-8a54-4b1e-9f27-6c1d2e3f4a5b", count: 2, title: "Gedeeld recept")
            let upstream = try await SimulatorBackedTest.call(
                sim, .POST, "/api/search/", json: #"{"query":"Gedeeld recept","search_type":"keyword","limit":20}"#)
            #expect(upstream["results"]?.arrayValue?.count == 7, "PRSNL itself answers every account's")
            let found = try await Self.search("Gedeeld recept", context)
            #expect(Set(found.map(\.id)) == Set(own))
        }
    }

    /// PRSNL de-duplicates search results by content over every account: another account's copy
    /// must not hide the profile's own.
    @Test func anotherAccountsCopyDoesNotHideTheAccountsOwn() async throws {
        try await PRSNLCapturesTests.withSimulator { sim, context in
            let own = try await Self.importItems(
                sim, user: "demo", count: 1, title: "Dubbel opgeslagen", at: "2026-01-01T10:00:00Z",
                fingerprint: "fp-1")
            _ = try await Self.importItems(
                sim, user: "test", count: 1, title: "Dubbel opgeslagen", at: "2026-01-02T10:00:00Z",
                fingerprint: "fp-1")
            let found = try await Self.search("Dubbel opgeslagen", context)
            #expect(found.map(\.id) == own)
        }
    }

    /// Items saved in one microsecond (an import) are all listed once when the profile pages
    /// through its timeline, also where a page would end inside them.
    @Test func pagingNeverSkipsItemsSavedInOneMicrosecond() async throws {
        try await PRSNLCapturesTests.withSimulator { sim, context in
            // The group goes just below the account's three newest items, so a page of four
            // would end inside it.
            let newest = try await SimulatorBackedTest.call(
                sim, .GET, "/api/timeline?limit=4", headers: [("Authorization", "Bearer \(PRSNLSimulator.demoToken)")])
            let times = (newest["items"]?.arrayValue ?? []).compactMap {
                $0["createdAt"]?.stringValue.flatMap(PRSNLCursor.micros)
            }
            try #require(times.count == 4 && times[2] - times[3] > 2)
            let at = Civil.isoString((times[2] + times[3]) / 2) + "Z"
            let group = try await Self.importItems(sim, user: "demo", count: 3, title: "Import", at: at)

            var seen: [String] = []
            var cursor: String?
            for _ in 0..<50 {
                var arguments: [String: ArgumentValue] = ["limit": .int(4)]
                if let cursor { arguments["cursor"] = .string(cursor) }
                let normalised = try PRSNLTimelineOperation().normalise(arguments, clock: Self.clock)
                let items = try JSONDecoder().decode(
                    [KnowledgeItem].self,
                    from: try await PRSNLTimelineOperation().fetch(normalised, context: context).body)
                seen += items.map(\.id)
                let next = try JSONDecoder().decode(
                    JSONValue.self,
                    from: try await PRSNLTimelineCursorOperation().fetch(normalised, context: context).body)
                guard let text = next.stringValue else { break }
                cursor = text
            }
            #expect(Set(group).isSubset(of: Set(seen)), "every imported item is listed")
            #expect(seen.count == Set(seen).count, "none twice")
            let all = try await SimulatorBackedTest.call(
                sim, .GET, "/api/timeline?limit=100", headers: [("Authorization", "Bearer \(PRSNLSimulator.demoToken)")]
            )
            #expect(seen.count == all["items"]?.arrayValue?.count)
        }
    }
}
