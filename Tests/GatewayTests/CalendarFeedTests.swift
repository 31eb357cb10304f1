import Foundation
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import Testing

@testable import Gateway

/// `/v1/calendar.ics` against the demo's simulators: every source in one feed with stable UIDs
/// (an edit in 8alls changes the same entry), a weak ETag and 304 for polls, and access by a
/// client key or the client's feed key — which opens nothing else and never shows in the logs.
@Suite("Calendar feed")
struct CalendarFeedTests {
    static let key = "feed-test-client-key-0123"
    static let feedKey = "feedonly0123456789abcdef"

    func vevents(_ text: String) -> [(uid: String, summary: String)] {
        let unfolded = text.replacingOccurrences(of: "\r\n ", with: "")
        return unfolded.components(separatedBy: "BEGIN:VEVENT").dropFirst().map { block in
            let lines = block.components(separatedBy: "\r\n")
            let uid = lines.first { $0.hasPrefix("UID:") }.map { String($0.dropFirst(4)) } ?? ""
            let summary = lines.first { $0.hasPrefix("SUMMARY:") }.map { String($0.dropFirst(8)) } ?? ""
            return (uid, summary)
        }
    }

    @Test func everySourceInOneFeedWithStableUIDsAndConditionalPolls() async throws {
        let client = ClientConfig(name: "phone", key: Self.key, profile: "default", feedKey: Self.feedKey)
        try await withDemo(clients: [client]) { demo in
            try await demo.test { http in
                let bearer: HTTPFields = [.authorization: "Bearer \(Self.key)"]
                let first = try await http.execute(uri: "/v1/calendar.ics", method: .get, headers: bearer)
                #expect(first.status == .ok)
                #expect(first.headers[.contentType] == "text/calendar; charset=utf-8")
                let text = String(buffer: first.body)
                #expect(text.hasPrefix("BEGIN:VCALENDAR\r\n"))
                #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:\(DemoHarness.zone.identifier)"))
                let events = vevents(text)
                for source in ["eightalls-", "tickedify-plan-", "kantinekoning-", "school-"] {
                    #expect(events.contains { $0.uid.hasPrefix(source) }, "entries from \(source)")
                }
                #expect(Set(events.map(\.uid)).count == events.count, "UIDs are unique")

                // The same entries: the same (weak) ETag, and a poll with it gets 304.
                let etag = try #require(first.headers[.eTag])
                #expect(etag.hasPrefix("W/\""))
                let again = try await http.execute(uri: "/v1/calendar.ics", method: .get, headers: bearer)
                #expect(again.headers[.eTag] == etag)
                var conditional = bearer
                conditional[.ifNoneMatch] = etag
                let polled = try await http.execute(uri: "/v1/calendar.ics", method: .get, headers: conditional)
                #expect(polled.status == .notModified)
                #expect(polled.body.readableBytes == 0)

                // An edit in 8alls: the same UID, the new title, a new ETag.
                let edited = try #require(events.first { $0.uid.hasPrefix("eightalls-") })
                let id = String(edited.uid.dropFirst("eightalls-".count).dropLast("@daygate".count))
                    .removingPercentEncoding!
                var json = bearer
                json[.contentType] = "application/json"
                let put = try await http.execute(
                    uri: "/v1/events/\(id)", method: .put, headers: json,
                    body: ByteBuffer(string: #"{"title":"Verplaatst overleg"}"#))
                #expect(put.status == .ok)
                let after = try await http.execute(uri: "/v1/calendar.ics", method: .get, headers: conditional)
                #expect(after.status == .ok)
                #expect(after.headers[.eTag] != etag)
                let now = vevents(String(buffer: after.body))
                #expect(now.first { $0.uid == edited.uid }?.summary == "Verplaatst overleg")
                #expect(now.count == events.count)
            }
        }
    }

    @Test func aFeedKeyReadsTheFeedAndNothingElse() async throws {
        let client = ClientConfig(name: "phone", key: Self.key, profile: "default", feedKey: Self.feedKey)
        try await withDemo(clients: [client]) { demo in
            try await demo.test { http in
                let feed = try await http.execute(uri: "/v1/calendar.ics?key=\(Self.feedKey)", method: .get)
                #expect(feed.status == .ok)
                #expect(String(buffer: feed.body).contains("BEGIN:VEVENT"))
                #expect(try await http.execute(uri: "/v1/calendar.ics", method: .get).status == .unauthorized)
                #expect(
                    try await http.execute(uri: "/v1/calendar.ics?key=not-the-key-0123456789", method: .get).status
                        == .unauthorized)
                // The feed key is no client key: not as a bearer, not as ?key= elsewhere.
                let asBearer: HTTPFields = [.authorization: "Bearer \(Self.feedKey)"]
                #expect(
                    try await http.execute(uri: "/v1/events", method: .get, headers: asBearer).status == .unauthorized)
                #expect(
                    try await http.execute(uri: "/v1/calendar.ics", method: .get, headers: asBearer).status
                        == .unauthorized)
                #expect(
                    try await http.execute(uri: "/v1/events?key=\(Self.feedKey)", method: .get).status == .unauthorized)
                let bad = try await http.execute(uri: "/v1/calendar.ics?key=\(Self.feedKey)&from=soon", method: .get)
                #expect(bad.status == .badRequest)
                #expect(!String(buffer: bad.body).contains(Self.feedKey))
            }
            #expect(!demo.logs.text.contains(Self.feedKey), "the feed key never reaches the log")
        }
    }
}
