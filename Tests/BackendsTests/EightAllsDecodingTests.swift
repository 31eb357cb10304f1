import Backends
import Foundation
import Model
import Testing

@Suite("8alls decoding and requests")
struct EightAllsDecodingTests {
    let amsterdam = TimeZone(identifier: "Europe/Amsterdam")!

    @Test func realPostgresShape() throws {
        let body = Data(
            #"""
            [{"title":"Standup","description":null,"start_time":"2026-11-23T09:00:00Z","end_time":"2026-11-23T09:15:00Z","all_day":false,"location":null,"recurrence_rule":null,"status":"confirmed","event_type":"meeting","color":null,"tags":["work"],"attendees":[],"reminders":[],"id":"0b300a3d-0279-4a28-b196-e340059851b1","created_at":"2026-11-22T03:03:39.084911Z","updated_at":null}]
            """#.utf8)
        let events = try EightAllsClient.decodeEvents(body)
        #expect(events.count == 1)
        let event = events[0].unified(in: amsterdam)
        #expect(
            event
                == Event(
                    id: "0b300a3d-0279-4a28-b196-e340059851b1", title: "Standup", description: nil,
                    start: "2026-11-23T10:00:00+01:00", end: "2026-11-23T10:15:00+01:00", allDay: false, location: nil,
                    status: "confirmed", type: "meeting", color: nil, tags: ["work"]
                ))
    }

    @Test(arguments: [
        "2026-11-23T09:00:00",
        "2026-11-23T09:00:00Z",
        "2026-11-23T10:00:00+01:00",
        "2026-11-23T09:00:00.000000",
        "2026-11-23T09:00:00.0Z",
    ])
    func dateVariantsMeanTheSameInstant(start: String) throws {
        let body = Data(#"[{"id":"e1","title":"T","start_time":"\#(start)","end_time":"2026-11-23T11:00:00Z"}]"#.utf8)
        let event = try #require(try EightAllsClient.decodeEvents(body).first)
        #expect(event.unified(in: amsterdam).start == "2026-11-23T10:00:00+01:00")
    }

    @Test func guideShapeCamelCaseAndEnvelope() throws {
        let body = Data(
            #"{"success":true,"data":[{"id":7,"title":"Lunch","startTime":"2026-11-23T12:00:00.5Z","endTime":"2026-11-23T13:00:00Z","allDay":true,"eventType":"personal","extra":{"x":1}}]}"#
                .utf8)
        let event = try #require(try EightAllsClient.decodeEvents(body).first)
        #expect(event.id == "7")
        #expect(event.allDay)
        #expect(event.eventType == "personal")
        #expect(event.status == "confirmed")
        #expect(event.unified(in: .gmt).start == "2026-11-23T12:00:00.500000Z")
    }

    @Test func garbageIsABadResponse() {
        for body in [
            "<html>oops{", #"{"detail":"x"}"#, #"[{"title":"no id"}]"#,
            #"[{"id":"1","title":"t","start_time":"soon","end_time":"later"}]"#,
        ] {
            #expect(throws: BackendError.self, "\(body)") {
                try EightAllsClient.decodeEvents(Data(body.utf8))
            }
            do {
                _ = try EightAllsClient.decodeEvents(Data(body.utf8))
            } catch let error as BackendError {
                #expect(error.kind == .badResponse)
            } catch {
                Issue.record("wrong error \(error)")
            }
        }
    }

    @Test func errorDetailAsStringOrArray() {
        #expect(UpstreamErrorMessage.extract(from: Data(#"{"detail":"Event not found"}"#.utf8)) == "Event not found")
        // PRSNL's 429 (slowapi): the code beside the sentence gives way to the sentence.
        #expect(
            UpstreamErrorMessage.extract(
                from: Data(
                    #"{"error":"rate_limit_exceeded","message":"Rate limit exceeded: 30 per 1 minute","retry_after":null}"#
                        .utf8)) == "Rate limit exceeded: 30 per 1 minute")
        #expect(
            UpstreamErrorMessage.extract(from: Data(#"{"error":"Something broke badly"}"#.utf8))
                == "Something broke badly")
        let validation =
            #"{"detail":[{"type":"datetime_parsing","loc":["query","end_date"],"msg":"Input should be a valid datetime, invalid datetime separator","input":"2026-11-24"}]}"#
        #expect(
            UpstreamErrorMessage.extract(from: Data(validation.utf8))
                == "query.end_date: Input should be a valid datetime, invalid datetime separator")
        #expect(
            UpstreamErrorMessage.extract(from: Data(#"{"success":false,"error":{"code":"X","message":"broken"}}"#.utf8))
                == "broken")
        // The common shapes of other APIs, so a new backend's errors read without code of its own.
        let shapes: [(String, String)] = [
            (
                #"{"error":true,"reason":"Parameter 'start_date' is out of allowed range"}"#,
                "Parameter 'start_date' is out of allowed range"
            ),
            (#"{"error":"invalid_grant","error_description":"Refresh token expired"}"#, "Refresh token expired"),
            (#"{"type":"about:blank","title":"Not Found","status":404}"#, "Not Found"),
            (#"{"type":"x","title":"Bad","status":400,"detail":"date is in the past"}"#, "date is in the past"),
            (#"{"errors":[{"message":"Field 'x' missing"}],"data":null}"#, "Field 'x' missing"),
            (#"{"errors":[{"status":"422","title":"Invalid","detail":"name is blank"}]}"#, "name is blank"),
            (#"{"errors":["first","second"]}"#, "first; second"),
            (#"{"status":500,"message":"Internal error"}"#, "Internal error"),
        ]
        for (body, message) in shapes {
            #expect(UpstreamErrorMessage.extract(from: Data(body.utf8)) == message, "\(body)")
        }
        #expect(UpstreamErrorMessage.extract(from: Data(#"{"error":true}"#.utf8)) == nil)
        #expect(UpstreamErrorMessage.extract(from: Data("not json".utf8)) == nil)
        let long = String(repeating: "a", count: 500)
        #expect(UpstreamErrorMessage.extract(from: Data(#"{"detail":"\#(long)"}"#.utf8))?.count == 201)
    }

    @Test func localDayBecomesAUTCRangeAcrossTheAutumnDSTChange() throws {
        let operation = EightAllsEventsOperation()
        let normalised = try operation.normalise(
            ["date": .date(LocalDate("2026-10-25")!)], clock: RequestClock(now: Date(), timeZone: amsterdam))
        #expect(normalised["from"] == .date(LocalDate("2026-10-25")!))
        #expect(normalised["to"] == .date(LocalDate("2026-10-25")!))
        let day = LocalDate("2026-10-25")!.interval(in: amsterdam)
        let query = EightAllsClient.eventsQuery(start: day.start, end: day.end, eventType: nil, status: nil)
        #expect(query == "start_date=2026-10-24T22%3A00%3A00Z&end_date=2026-10-25T22%3A59%3A59.999999Z")
    }

    @Test func springDSTChangeAndFilters() {
        let day = LocalDate("2026-03-29")!.interval(in: amsterdam)
        let query = EightAllsClient.eventsQuery(start: day.start, end: day.end, eventType: "a+b c", status: "confirmed")
        #expect(
            query
                == "start_date=2026-03-28T23%3A00%3A00Z&end_date=2026-03-29T21%3A59%3A59.999999Z&event_type=a%2Bb%20c&status=confirmed"
        )
    }

    @Test func plusIsAlwaysPercentEncoded() {
        #expect(QueryString.escape("2026-11-23T10:00:00+01:00") == "2026-11-23T10%3A00%3A00%2B01%3A00")
        #expect(QueryString.pathSegment("../x") == "..%2Fx")
        #expect(QueryString.pathSegment("..") == "%2E%2E")
    }

    @Test func argumentValidation() throws {
        let operation = EightAllsEventsOperation()
        let zone = amsterdam
        let from = LocalDate("2026-11-20")!
        let to = LocalDate("2026-11-22")!
        // Just after midnight in Amsterdam, still the day before in UTC: today is the local day.
        let clock = RequestClock(now: LenientDate.parse("2026-11-22T23:30:00Z")!, timeZone: zone)
        let range = try operation.normalise(
            ["from": .date(from), "to": .date(to), "status": .string("confirmed")], clock: clock)
        #expect(range == ["from": .date(from), "to": .date(to), "status": .string("confirmed")])
        let today = try operation.normalise([:], clock: clock)
        #expect(today["from"] == .date(LocalDate("2026-11-23")!))

        func message(_ arguments: [String: ArgumentValue]) -> String? {
            do {
                _ = try operation.normalise(arguments, clock: clock)
                return nil
            } catch let error as ErrorDetail {
                #expect(error.code == "bad_parameter")
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message(["from": .date(to), "to": .date(from)]) == "to (2026-11-20) is before from (2026-11-22)")
        #expect(message(["from": .date(from)]) == "from needs to as well")
        #expect(message(["to": .date(to)]) == "to needs from as well")
        #expect(
            message(["date": .date(from), "from": .date(from), "to": .date(to)])
                == "give either date or from and to, not both")
        #expect(
            message(["from": .date(from), "to": .date(from.adding(days: 366))]) == "from…to spans 367 days; at most 366"
        )
        #expect(message(["from": .date(from), "to": .date(from.adding(days: 365))]) == nil)
    }

    @Test func overlapExcludesEventsTouchingTheBoundary() throws {
        let day = LocalDate("2026-11-23")!.interval(in: amsterdam)
        func event(_ start: String, _ end: String) throws -> EightAllsEvent {
            try #require(
                EightAllsEvent(
                    .object([
                        "id": .string("x"), "title": .string("t"), "start_time": .string(start),
                        "end_time": .string(end),
                    ])))
        }
        #expect(try event("2026-11-22T22:00:00Z", "2026-11-22T23:00:00Z").overlaps(day) == false)
        #expect(try event("2026-11-22T22:30:00Z", "2026-11-22T23:30:00Z").overlaps(day))
        #expect(try event("2026-11-23T22:59:00Z", "2026-11-24T01:00:00Z").overlaps(day))
        #expect(try event("2026-11-23T23:00:00Z", "2026-11-24T01:00:00Z").overlaps(day) == false)
        #expect(try event("2026-11-23T08:00:00Z", "2026-11-23T08:00:00Z").overlaps(day))
    }
}

@Suite("8alls websocket hints")
struct EightAllsHintListenerTests {
    @Test func websocketURLFollowsTheBaseURL() {
        #expect(
            EightAllsHintListener.url(for: BackendEndpoint(baseURL: "http://127.0.0.1:9101/api"))
                == "ws://127.0.0.1:9101/ws")
        #expect(
            EightAllsHintListener.url(for: BackendEndpoint(baseURL: "https://8alls-api.fly.dev/api"))
                == "wss://8alls-api.fly.dev/ws")
        #expect(
            EightAllsHintListener.url(for: BackendEndpoint(baseURL: "http://calendar.lan:8000"))
                == "ws://calendar.lan:8000/ws")
    }
}
