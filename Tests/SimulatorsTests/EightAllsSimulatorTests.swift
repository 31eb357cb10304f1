import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

@Suite("8alls simulator")
struct EightAllsSimulatorTests {
    // The local day 2026-11-23 in Amsterdam is [2026-11-22T23:00Z, 2026-11-23T23:00Z).
    static let todayRange = "/api/events?start_date=2026-11-22T23:00:00Z&end_date=2026-11-23T22:59:59Z"

    @Test func rootAndHealth() async throws {
        try await withEightAlls { sim, client in
            let root = try await client.send(sim, "/")
            #expect(root.status == 200)
            #expect(root.body == #"{"message":"8alls API","version":"1.0.0","docs":"/docs"}"#)
            let health = try await client.send(sim, "/health")
            #expect(health.body == #"{"status":"healthy","environment":"development"}"#)
            #expect(health.headers["content-type"].first == "application/json")
            #expect(sim.apiBaseURL == "http://127.0.0.1:\(sim.port)/api")
            #expect(sim.baseURL == "http://127.0.0.1:\(sim.port)")
            #expect(sim.kind == .eightalls)
        }
    }

    @Test func seededTodayInRange() async throws {
        try await withEightAlls { sim, client in
            let r = try await client.send(sim, Self.todayRange)
            #expect(r.status == 200)
            #expect(r.titles == ["Standup", "Lunch with Noor", "Design review", "School pickup", "Book club"])
            // Field order and format exactly as FastAPI writes them.
            #expect(
                r.body.hasPrefix(
                    #"[{"title":"Standup","description":null,"start_time":"2026-11-23T08:00:00Z","end_time":"2026-11-23T08:15:00Z","all_day":false,"location":null,"recurrence_rule":null,"status":"confirmed","event_type":"meeting","color":null,"tags":["work"],"attendees":[],"reminders":[],"id":""#
                )
            )
            let review = try #require(r.array.first { $0["title"] as? String == "Design review" })
            #expect(review["start_time"] as? String == "2026-11-23T13:00:00Z")
            #expect(review["end_time"] as? String == "2026-11-23T14:00:00Z")
            #expect(review["location"] as? String == "Room 2")
            #expect(review["color"] as? String == "#4f46e5")
            #expect(review["updated_at"] as? String != nil)
            let bookClub = try #require(r.array.first { $0["title"] as? String == "Book club" })
            #expect(bookClub["status"] as? String == "tentative")
            // Datetimes: fraction only when non-zero, six digits.
            let created = r.array.compactMap { $0["created_at"] as? String }
            #expect(created.count == 5)
            #expect(created.allSatisfy { $0.hasSuffix("Z") })
            // Keys come in the contract's order.
            let keys = [
                "title", "description", "start_time", "end_time", "all_day", "location", "recurrence_rule", "status",
                "event_type", "color", "tags", "attendees", "reminders", "id", "created_at", "updated_at",
            ]
            let firstObject = String(r.body.dropFirst().prefix { $0 != "}" })
            let positions = keys.map { firstObject.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        }
    }

    @Test func wholeWeekIsSeededAndSorted() async throws {
        try await withEightAlls { sim, client in
            let r = try await client.send(sim, "/api/events")
            let starts = r.array.compactMap { $0["start_time"] as? String }
            #expect(starts.count >= 28)
            #expect(starts == starts.sorted())
            #expect(r.array.contains { $0["all_day"] as? Bool == true })
            #expect(r.array.contains { $0["status"] as? String == "cancelled" })
            #expect(r.array.filter { $0["title"] as? String == "Standup" }.count == 7)
            // First seeded event's created_at keeps its microseconds.
            #expect(r.body.contains(".084911Z"))
        }
    }

    @Test func overlapSemanticsIncludeEventsCrossingMidnight() async throws {
        try await withEightAlls { sim, client in
            // Local 2026-11-26 starts at 2026-11-25T23:00Z; the deploy window runs 21:30Z-23:30Z on the 25th.
            // The all-day offsite ends exactly at 23:00Z and is included too: both bounds are inclusive.
            let r = try await client.send(
                sim, "/api/events?start_date=2026-11-25T23:00:00Z&end_date=2026-11-26T22:59:59Z")
            #expect(r.titles.prefix(2) == ["Team offsite", "Late deploy window"])
            #expect(r.titles.contains("Standup"))
            // end_time >= start_date is inclusive.
            let edge = try await client.send(
                sim, "/api/events?start_date=2026-11-23T08:15:00Z&end_date=2026-11-23T08:15:00Z")
            #expect(edge.titles == ["Standup"])
            // Only one bound: everything ending at or after it.
            let after = try await client.send(sim, "/api/events?start_date=2026-11-26T18:00:00Z")
            #expect(after.titles == ["Dinner reservation", "Bins out"])
        }
    }

    @Test func filtersByTypeAndStatus() async throws {
        try await withEightAlls { sim, client in
            let cancelled = try await client.send(sim, "/api/events?event_type=meeting&status=cancelled")
            #expect(cancelled.titles == ["Quarterly planning"])
            let tentative = try await client.send(sim, "/api/events?status=tentative")
            #expect(tentative.titles == ["Book club"])
            // Empty values are ignored (`if status:` in the route).
            let all = try await client.send(sim, "/api/events?status=&event_type=")
            #expect(all.array.count >= 28)
        }
    }

    @Test func naiveDateStyleAndRuntimeSwitch() async throws {
        try await withEightAlls(dateStyle: .naive) { sim, client in
            let naive = try await client.send(sim, Self.todayRange)
            let standup = try #require(naive.array.first)
            #expect(standup["start_time"] as? String == "2026-11-23T08:00:00")
            #expect(!naive.body.contains("Z\""))

            let switched = try await client.send(.POST, sim, "/_sim/options", json: #"{"date_style":"zulu"}"#)
            #expect(switched.object["date_style"] as? String == "zulu")
            let zulu = try await client.send(sim, Self.todayRange)
            #expect(zulu.array.first?["start_time"] as? String == "2026-11-23T08:00:00Z")

            let bad = try await client.send(.POST, sim, "/_sim/options", json: #"{"date_style":"local"}"#)
            #expect(bad.status == 400)
            let options = try await client.send(sim, "/_sim/options")
            #expect(options.object["seed_day"] as? String == testSeedDay)
            #expect(options.object["time_zone"] as? String == "Europe/Amsterdam")
        }
    }

    @Test func naiveStyleDropsInputOffsets() async throws {
        try await withEightAlls(dateStyle: .naive) { sim, client in
            let created = try await client.send(
                .POST, sim, "/api/events",
                json:
                    #"{"title":"Call","start_time":"2026-11-23T09:00:00+01:00","end_time":"2026-11-23T09:30:00+01:00"}"#
            )
            #expect(created.status == 201)
            #expect(created.object["start_time"] as? String == "2026-11-23T09:00:00")
            // SQLite's CURRENT_TIMESTAMP has whole seconds.
            let createdAt = try #require(created.object["created_at"] as? String)
            #expect(createdAt.count == 19)
        }
    }

    @Test func dateOnlyIsRejectedWithPydanticDetail() async throws {
        try await withEightAlls { sim, client in
            let r = try await client.send(sim, "/api/events?start_date=2026-11-23T00:00:00Z&end_date=2026-11-24")
            #expect(r.status == 422)
            #expect(
                r.body
                    == #"{"detail":[{"type":"datetime_parsing","loc":["query","end_date"],"msg":"Input should be a valid datetime, invalid datetime separator, expected `T`, `t`, `_` or space","input":"2026-11-24","ctx":{"error":"invalid datetime separator, expected `T`, `t`, `_` or space"},"url":"https://errors.pydantic.dev/2.5/v/datetime_parsing"}]}"#
            )
            let both = try await client.send(sim, "/api/events?start_date=2026-11-23&end_date=2026-11-24")
            let detail = try #require(both.object["detail"] as? [[String: Any]])
            #expect(detail.count == 2)
            #expect((detail.first?["loc"] as? [String]) == ["query", "start_date"])
        }
    }

    @Test func plusMustBePercentEncoded() async throws {
        try await withEightAlls { sim, client in
            let unencoded = try await client.send(sim, "/api/events?start_date=2026-11-23T09:00:00+01:00")
            #expect(unencoded.status == 422)
            let detail = try #require((unencoded.object["detail"] as? [[String: Any]])?.first)
            #expect(detail["type"] as? String == "datetime_parsing")
            #expect(detail["input"] as? String == "2026-11-23T09:00:00 01:00")
            #expect((detail["msg"] as? String)?.contains("invalid timezone sign") == true)

            let encoded = try await client.send(
                sim, "/api/events?start_date=2026-11-23T15:00:00%2B01:00&end_date=2026-11-23T23:59:59%2B01:00")
            #expect(encoded.status == 200)
            #expect(encoded.titles == ["Design review", "School pickup", "Book club"])

            // Naive input is UTC; fractions up to six digits are fine.
            let naive = try await client.send(
                sim, "/api/events?start_date=2026-11-23T13:00:00.123456&end_date=2026-11-23T13:30")
            #expect(naive.titles == ["Design review"])
        }
    }

    @Test func trailingSlashRedirects() async throws {
        try await withEightAlls { sim, client in
            let r = try await client.send(sim, "/api/events/?status=tentative")
            #expect(r.status == 307)
            #expect(r.headers["location"].first == "http://127.0.0.1:\(sim.port)/api/events?status=tentative")
            #expect(r.body.isEmpty)
            let post = try await client.send(.POST, sim, "/api/events/", json: "{}")
            #expect(post.status == 307)
            let unknown = try await client.send(sim, "/api/nothing/")
            #expect(unknown.status == 404)
            #expect(unknown.body == #"{"detail":"Not Found"}"#)
            let wrongMethod = try await client.send(.PATCH, sim, "/api/events")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.body == #"{"detail":"Method Not Allowed"}"#)
        }
    }

    @Test func createGetUpdateDelete() async throws {
        try await withEightAlls { sim, client in
            let created = try await client.send(
                .POST, sim, "/api/events",
                json:
                    #"{"title":"Standup","start_time":"2026-11-24T14:00:00+01:00","end_time":"2026-11-24T14:30:00Z","event_type":"meeting","tags":["work"]}"#
            )
            #expect(created.status == 201)
            let event = created.object
            let id = try #require(event["id"] as? String)
            #expect(id.count == 36)
            #expect(event["start_time"] as? String == "2026-11-24T13:00:00Z")
            #expect(event["all_day"] as? Bool == false)
            #expect(event["status"] as? String == "confirmed")
            #expect((event["attendees"] as? [Any])?.isEmpty == true)
            #expect((event["reminders"] as? [Any])?.isEmpty == true)
            #expect(event["updated_at"] is NSNull)
            #expect((event["created_at"] as? String)?.hasSuffix("Z") == true)

            let fetched = try await client.send(sim, "/api/events/\(id)")
            #expect(fetched.status == 200)
            #expect(fetched.body == created.body)

            // Nothing changed, so no UPDATE and no updated_at.
            let noop = try await client.send(.PUT, sim, "/api/events/\(id)", json: #"{"title":"Standup"}"#)
            #expect(noop.status == 200)
            #expect(noop.object["updated_at"] is NSNull)

            let updated = try await client.send(
                .PUT, sim, "/api/events/\(id)", json: #"{"location":"Room 5","status":"tentative"}"#)
            #expect(updated.status == 200)
            #expect(updated.object["title"] as? String == "Standup")
            #expect(updated.object["location"] as? String == "Room 5")
            #expect(updated.object["status"] as? String == "tentative")
            #expect(updated.object["updated_at"] as? String != nil)

            let badRange = try await client.send(
                .PUT, sim, "/api/events/\(id)", json: #"{"end_time":"2026-11-24T12:00:00Z"}"#)
            #expect(badRange.status == 400)
            #expect(badRange.body == #"{"detail":"end_time must be after start_time"}"#)

            // Explicit nulls pass validation (EventUpdate is all-Optional) but break NOT NULL columns.
            let nullTitle = try await client.send(.PUT, sim, "/api/events/\(id)", json: #"{"title":null}"#)
            #expect(nullTitle.status == 500)
            let nullStart = try await client.send(.PUT, sim, "/api/events/\(id)", json: #"{"start_time":null}"#)
            #expect(nullStart.status == 500)
            // A naive datetime against Postgres' aware value cannot be compared: TypeError.
            let naiveStart = try await client.send(
                .PUT, sim, "/api/events/\(id)", json: #"{"start_time":"2026-11-24T13:10:00"}"#)
            #expect(naiveStart.status == 500)
            let badTitle = try await client.send(.PUT, sim, "/api/events/\(id)", json: #"{"title":""}"#)
            #expect(badTitle.status == 422)
            let unchanged = try await client.send(sim, "/api/events/\(id)")
            #expect(unchanged.body == updated.body)

            let deleted = try await client.send(.DELETE, sim, "/api/events/\(id)")
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            #expect(deleted.headers["content-type"].first == "application/json")

            let gone = try await client.send(sim, "/api/events/\(id)")
            #expect(gone.status == 404)
            #expect(gone.body == #"{"detail":"Event not found"}"#)
            let deleteAgain = try await client.send(.DELETE, sim, "/api/events/\(id)")
            #expect(deleteAgain.status == 404)
            let putMissing = try await client.send(.PUT, sim, "/api/events/\(id)", json: #"{"title":"x"}"#)
            #expect(putMissing.status == 404)
        }
    }

    @Test func createRejectsBadInput() async throws {
        try await withEightAlls { sim, client in
            let backwards = try await client.send(
                .POST, sim, "/api/events",
                json: #"{"title":"x","start_time":"2026-11-24T10:00:00Z","end_time":"2026-11-24T10:00:00Z"}"#
            )
            #expect(backwards.status == 400)
            #expect(backwards.body == #"{"detail":"end_time must be after start_time"}"#)

            let missing = try await client.send(.POST, sim, "/api/events", json: #"{"title":"x"}"#)
            #expect(missing.status == 422)
            let detail = try #require(missing.object["detail"] as? [[String: Any]])
            #expect(detail.map { $0["loc"] as? [String] ?? [] } == [["body", "start_time"], ["body", "end_time"]])
            #expect(
                detail.allSatisfy { $0["type"] as? String == "missing" && $0["msg"] as? String == "Field required" })
            #expect(detail.first?["url"] as? String == "https://errors.pydantic.dev/2.5/v/missing")

            let emptyTitle = try await client.send(
                .POST, sim, "/api/events",
                json:
                    #"{"title":"","start_time":"2026-11-24T10:00:00Z","end_time":"2026-11-24T11:00:00Z","tags":"work"}"#
            )
            #expect(emptyTitle.status == 422)
            let types = (emptyTitle.object["detail"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(types == ["string_too_short", "list_type"])

            let noBody = try await client.send(.POST, sim, "/api/events")
            #expect(noBody.status == 422)
            #expect(noBody.body.contains(#""loc":["body"]"#))

            let notJSON = try await client.send(.POST, sim, "/api/events", json: "{oops")
            #expect(notJSON.status == 422)
            #expect(
                notJSON.body
                    == #"{"detail":[{"type":"json_invalid","loc":["body",1],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting property name enclosed in double quotes"}}]}"#
            )

            // Comparing an aware with a naive datetime is a TypeError in the real server.
            let mixed = try await client.send(
                .POST, sim, "/api/events",
                json: #"{"title":"x","start_time":"2026-11-24T10:00:00Z","end_time":"2026-11-24T11:00:00"}"#
            )
            #expect(mixed.status == 500)
            #expect(mixed.body == "Internal Server Error")
        }
    }

    @Test func eventsByDate() async throws {
        try await withEightAlls { sim, client in
            // A naive day is a UTC day: 2026-11-23T00:00Z ... 23:59:59.999999Z.
            let day = try await client.send(sim, "/api/events/date/2026-11-23")
            #expect(day.status == 200)
            #expect(day.titles == ["Standup", "Lunch with Noor", "Design review", "School pickup", "Book club"])
            let bad = try await client.send(sim, "/api/events/date/23-11-2026")
            #expect(bad.status == 400)
            #expect(bad.body == #"{"detail":"Invalid date format. Use YYYY-MM-DD"}"#)
        }
    }

    @Test func seedIsDeterministic() async throws {
        let options = EightAllsSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone)
        let a = try EightAllsStore(options: options).list { _ in true }.0.map(\.id)
        let b = try EightAllsStore(options: options).list { _ in true }.0.map(\.id)
        #expect(a == b)
        #expect(Set(a).count == a.count)
        let other = try EightAllsStore(options: .init(seedDay: "2026-11-24", timeZone: testTimeZone)).list { _ in true }
            .0.map(\.id)
        #expect(Set(other).isDisjoint(with: a))
        #expect(throws: SimulatorError.self) { try EightAllsStore(options: .init(seedDay: "2026-13-01")) }
    }

    @Test func resetRestoresTheSeed() async throws {
        try await withEightAlls { sim, client in
            let before = try await client.send(sim, "/api/events").array.count
            _ = try await client.send(
                .POST, sim, "/api/events",
                json: #"{"title":"x","start_time":"2026-11-24T10:00:00Z","end_time":"2026-11-24T11:00:00Z"}"#
            )
            #expect(try await client.send(sim, "/api/events").array.count == before + 1)
            let reset = try await client.send(.POST, sim, "/_sim/reset")
            #expect(reset.status == 200)
            #expect(try await client.send(sim, "/api/events").array.count == before)
        }
    }
}
