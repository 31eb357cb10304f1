import AsyncHTTPClient
import ChildProcess
import Foundation
import Model
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

/// Starts an ICS simulator on the shared test week, runs `body` with the shared client, and always
/// stops it.
func withICSSimulator(
    _ options: ICSSimulator.Options = ICSSimulator.Options(seedDay: testSeedDay, timeZone: testTimeZone),
    _ body: (RunningSimulator, HTTPClient) async throws -> Void
) async throws {
    try await withSimulator(sharedClient: true, start: { try await ICSSimulator(options: options).start() }, body)
}

/// The `Authorization` header each demo calendar wants.
func icsCredentials(_ auth: ICSSimulator.Auth) -> [(String, String)] {
    switch auth {
    case .anonymous: []
    case .basic(let user, let password):
        [("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())]
    case .bearer(let token): [("Authorization", "Bearer \(token)")]
    }
}

extension HTTPClient {
    /// Fetches a demo calendar with its credentials plus `headers`.
    func ics(
        _ sim: RunningSimulator, _ name: String, method: HTTPMethod = .GET, headers: [(String, String)] = []
    ) async throws -> SimResponse {
        let calendar = try #require(ICSSimulator.demoCalendar(name))
        return try await send(method, sim, calendar.path, headers: icsCredentials(calendar.auth) + headers)
    }
}

/// A content line: name, parameters (`;…` as written) and value.
struct ICSLine: Equatable {
    var name: String
    var params: String
    var value: String

    var tzid: String? {
        params.split(separator: ";").first { $0.hasPrefix("TZID=") }.map { String($0.dropFirst(5)) }
    }
}

/// Unfolds and splits a feed the way a parser does (for checking what the simulator wrote).
enum ICSTestParser {
    static func lines(_ body: String) -> [ICSLine] {
        let unfolded = body.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\r\n\t", with: "")
        return unfolded.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { raw in
            let colon = raw.firstIndex(of: ":") ?? raw.endIndex
            let head = raw[..<colon]
            let value = colon < raw.endIndex ? String(raw[raw.index(after: colon)...]) : ""
            let semicolon = head.firstIndex(of: ";") ?? head.endIndex
            return ICSLine(name: String(head[..<semicolon]), params: String(head[semicolon...]), value: value)
        }
    }

    /// The `VEVENT`s, each as its lines (nested `VALARM`s left out).
    static func events(_ body: String) -> [[ICSLine]] {
        var events: [[ICSLine]] = []
        var current: [ICSLine]?
        var depth = 0
        for line in lines(body) {
            if line.name == "BEGIN", line.value == "VEVENT" {
                current = []
            } else if line.name == "END", line.value == "VEVENT" {
                if let current { events.append(current) }
                current = nil
            } else if line.name == "BEGIN", current != nil {
                depth += 1
            } else if line.name == "END", current != nil {
                depth -= 1
            } else if depth == 0 {
                current?.append(line)
            }
        }
        return events
    }

    /// The local day (`YYYY-MM-DD`) in `zone` on which an event's `DTSTART` falls, and whether it
    /// is all-day. Knows `Z`, `VALUE=DATE` and the two Amsterdam TZIDs of the demo feeds.
    static func startDay(_ event: [ICSLine], in zone: TimeZone) -> (day: String, allDay: Bool)? {
        guard let start = event.first(where: { $0.name == "DTSTART" }) else { return nil }
        let v = Array(start.value.utf8)
        guard let y = Civil.digits(v, 0, 4), let m = Civil.digits(v, 4, 2), let d = Civil.digits(v, 6, 2) else {
            return nil
        }
        if start.params.contains("VALUE=DATE") {
            return (LocalDate(dayNumber: Civil.days(year: y, month: m, day: d)).description, true)
        }
        guard let hh = Civil.digits(v, 9, 2), let mm = Civil.digits(v, 11, 2) else { return nil }
        let seconds: Int64
        if start.value.hasSuffix("Z") {
            seconds = Civil.micros(year: y, month: m, day: d, hour: hh, minute: mm) / Civil.microsPerSecond
        } else {
            #expect(start.tzid == "Europe/Amsterdam" || start.tzid == "W. Europe Standard Time")
            let ams = SeedCalendar(seedDays: Civil.days(year: y, month: m, day: d), timeZone: ICSSeed.amsterdam)
            seconds = ams.utcSeconds(0, hh, mm)
        }
        return (LocalDate(containing: Date(timeIntervalSince1970: TimeInterval(seconds)), in: zone).description, false)
    }
}

@Suite("ICS calendar-feed simulator")
struct ICSSimulatorTests {
    static let basic = icsCredentials(.basic(user: ICSSimulator.demoUser, password: ICSSimulator.demoPassword))

    // MARK: - Demo constants and routing

    @Test func demoCalendarsAreDistinct() {
        let calendars = ICSSimulator.demoCalendars
        #expect(calendars.map(\.name) == ["school", "holidays", "club", "work"])
        #expect(Set(calendars.map(\.path)).count == calendars.count)
        #expect(calendars.allSatisfy { $0.colour.count == 7 && $0.colour.hasPrefix("#") })
        #expect(calendars.map(\.auth.scheme) == ["none", "none", "basic", "bearer"])
        #expect(ICSSimulator.demoSecretPath.hasPrefix("/calendars/private-"))
        #expect(ICSSimulator.demoSecretPath.hasSuffix("/basic.ics"))
        #expect(ICSSimulator.demoCalendar("work")?.path == ICSSimulator.demoSecretPath)
        #expect(ICSSimulator.demoCalendar("nope") == nil)
    }

    @Test func options() async throws {
        let zone = try #require(TimeZone(identifier: "Pacific/Auckland"))
        #expect(ICSSimulator.Options(timeZone: zone).seedDay == LocalDate.today(in: zone).description)
        await #expect(throws: SimulatorError.self) {
            _ = try await ICSSimulator(options: .init(seedDay: "2026-02-30", timeZone: zone)).start()
        }
        try await withICSSimulator(.init(seedDay: "2027-03-28", timeZone: zone)) { sim, client in
            let options = try await client.send(sim, "/_sim/options").object
            #expect(options["seed_day"] as? String == "2027-03-28")
            #expect(options["time_zone"] as? String == "Pacific/Auckland")
            #expect(options["ics_malformed"] as? Bool == false)
        }
    }

    @Test func routing() async throws {
        try await withICSSimulator { sim, client in
            #expect(sim.kind == .ics)
            #expect(sim.apiBaseURL == sim.baseURL)
            let unknown = try await client.send(sim, "/calendars/nope.ics")
            #expect(unknown.status == 404)
            #expect(unknown.body == "Not Found")
            #expect(unknown.headers["content-type"].first == "text/plain; charset=utf-8")
            #expect(try await client.send(sim, "/").status == 404)
            // Google's behaviour: the wrong secret is simply not there, and neither is the name.
            #expect(try await client.send(sim, "/calendars/work.ics").status == 404)
            #expect(try await client.send(sim, "/calendars/private-0000/basic.ics").status == 404)
            let post = try await client.send(.POST, sim, "/calendars/school.ics", json: "{}")
            #expect(post.status == 405)
            #expect(post.headers["allow"].first == "GET, HEAD")
            let controls = try await client.send(sim, "/_sim")
            #expect(controls.object["kind"] as? String == "ics")
            #expect((controls.object["routes"] as? [String])?.contains("POST /_sim/calendars/<name>") == true)
        }
    }

    // MARK: - Wire format

    @Test func feedsAreCRLFFoldedCalendarsWithValidators() async throws {
        try await withICSSimulator { sim, client in
            var folded = 0
            for calendar in ICSSimulator.demoCalendars {
                let r = try await client.ics(sim, calendar.name)
                #expect(r.status == 200, "\(calendar.name)")
                #expect(r.headers["content-type"].first == "text/calendar; charset=utf-8")
                #expect(r.body.hasPrefix("BEGIN:VCALENDAR\r\n"))
                #expect(r.body.hasSuffix("END:VCALENDAR\r\n"))
                // CRLF only, and no physical line longer than 75 octets.
                #expect(!r.body.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
                #expect(!r.body.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
                let physical = r.body.components(separatedBy: "\r\n")
                #expect(physical.allSatisfy { $0.utf8.count <= 75 }, "\(calendar.name)")
                folded += physical.filter { $0.hasPrefix(" ") }.count
                #expect(
                    ICSTestParser.lines(r.body).contains {
                        $0.name == "X-WR-CALNAME" && $0.value == ICSWriter.escape(calendar.title)
                    })
                let etag = try #require(r.headers["etag"].first)
                #expect(etag == ICSFeed.etag(r.body))
                #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/") && etag.count == 34)
                let lastModified = try #require(r.headers["last-modified"].first)
                #expect(Civil.parseHTTPDate(lastModified) != nil)
                #expect(lastModified.hasSuffix(" GMT"))
            }
            #expect(folded > 5)
        }
    }

    @Test func foldingNeverSplitsACharacter() {
        let long = "SUMMARY:" + String(repeating: "é", count: 100) + "–x"
        let folded = ICSWriter.fold(long)
        #expect(folded.hasSuffix("\r\n"))
        let physical = folded.components(separatedBy: "\r\n").dropLast()
        #expect(physical.allSatisfy { $0.utf8.count <= 75 })
        #expect(physical.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(folded.replacingOccurrences(of: "\r\n ", with: "") == long + "\r\n")
        #expect(ICSWriter.fold("SHORT:x") == "SHORT:x\r\n")
        #expect(ICSWriter.escape("a, b; c\\d\ne") == "a\\, b\\; c\\\\d\\ne")
    }

    // MARK: - The demo feeds

    @Test func schoolFeed() async throws {
        try await withICSSimulator { sim, client in
            let r = try await client.ics(sim, "school")
            let lines = ICSTestParser.lines(r.body)
            #expect(lines.contains(ICSLine(name: "X-WR-TIMEZONE", params: "", value: "Europe/Amsterdam")))
            #expect(r.body.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Amsterdam\r\n"))
            let events = ICSTestParser.events(r.body)
            func value(_ e: [ICSLine], _ name: String) -> String? { e.first { $0.name == name }?.value }
            // The seed day is Monday 2026-11-23: the series started three weeks back on a Tuesday.
            let gym = try #require(events.first { value($0, "RRULE") != nil })
            #expect(value(gym, "RRULE")?.hasPrefix("FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270716T") == true)
            #expect(gym.first { $0.name == "DTSTART" }?.params == ";TZID=Europe/Amsterdam")
            #expect(value(gym, "DTSTART") == "20261027T083000")
            #expect(value(gym, "DTEND") == "20261027T091500")
            // EXDATE: the study day (Thursday) and the holiday week's Tuesday and Thursday.
            #expect(value(gym, "EXDATE") == "20261126T083000,20261215T083000,20261217T083000")
            let moved = try #require(events.first { $0.contains { $0.name == "RECURRENCE-ID" } })
            #expect(value(moved, "UID") == value(gym, "UID"))
            #expect(value(moved, "RECURRENCE-ID") == "20261124T083000")
            #expect(value(moved, "DTSTART") == "20261124T093000")
            let byTitle = Dictionary(
                events.map { (value($0, "SUMMARY") ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            #expect(value(byTitle["Luizencontrole"] ?? [], "DTSTART") == "20261123")
            #expect(value(byTitle["Schoolfotograaf"] ?? [], "DTSTART") == "20261123T090000")
            #expect(value(byTitle["Ouderavond groep 5"] ?? [], "STATUS") == "CANCELLED")
            let camp = try #require(byTitle["Kampnacht groep 8"])
            #expect(value(camp, "DTSTART") == "20261127T190000")
            #expect(value(camp, "DTEND") == "20261128T093000")
            let holiday = try #require(byTitle["Kerstvakantie"])
            #expect(holiday.first { $0.name == "DTSTART" }?.params == ";VALUE=DATE")
            #expect(value(holiday, "DTSTART") == "20261212")
            #expect(value(holiday, "DTEND") == "20261221")
            let studyDays = events.filter { value($0, "SUMMARY") == "Studiedag (leerlingen vrij)" }
            #expect(studyDays.compactMap { value($0, "DTSTART") } == ["20261126", "20261223"])
            #expect(value(gym, "LOCATION") == "Gymzaal Kometensingel\\, Kometensingel 160\\, Amsterdam")
        }
    }

    @Test func easterAndDutchHolidays() async throws {
        #expect(ICSTime.easter(2026) == (4, 5))
        #expect(ICSTime.easter(2027) == (3, 28))
        #expect(ICSTime.easter(2024) == (3, 31))
        #expect(ICSTime.easter(2025) == (4, 20))
        #expect(ICSTime.easter(2038) == (4, 25))
        // Koningsdag moves to the 26th when the 27th is a Sunday (2025).
        let kingsDay2025 = ICSSeed.dutchHolidays(2025).first { $0.name == "Koningsdag" }?.days
        #expect(kingsDay2025.map { LocalDate(dayNumber: $0).description } == "2025-04-26")
        try await withICSSimulator { sim, client in
            let r = try await client.ics(sim, "holidays")
            #expect(r.body.contains("PRODID:-//Google Inc//Google Calendar 70.9054//EN\r\n"))
            #expect(r.body.contains("X-WR-CALNAME:Nederlandse feestdagen\r\n"))
            let events = ICSTestParser.events(r.body)
            var dates: [String: [String]] = [:]
            for event in events {
                let start = try #require(event.first { $0.name == "DTSTART" })
                #expect(start.params == ";VALUE=DATE")
                let summary = event.first { $0.name == "SUMMARY" }?.value ?? ""
                dates[summary, default: []].append(start.value)
                #expect(event.first { $0.name == "UID" }?.value.hasSuffix("@google.com") == true)
            }
            #expect(dates["Goede Vrijdag"] == ["20260403", "20270326"])
            #expect(dates["Eerste Paasdag"] == ["20260405", "20270328"])
            #expect(dates["Tweede Paasdag"] == ["20260406", "20270329"])
            #expect(dates["Koningsdag"] == ["20260427", "20270427"])
            #expect(dates["Bevrijdingsdag"] == ["20260505", "20270505"])
            #expect(dates["Hemelvaartsdag"] == ["20260514", "20270506"])
            #expect(dates["Eerste Pinksterdag"] == ["20260524", "20270516"])
            #expect(dates["Tweede Pinksterdag"] == ["20260525", "20270517"])
            #expect(dates["Eerste Kerstdag"] == ["20261225", "20271225"])
            #expect(dates["Nieuwjaarsdag"] == ["20260101", "20270101"])
        }
    }

    @Test func clubFeedNeedsBasicAuth() async throws {
        try await withICSSimulator { sim, client in
            let path = "/calendars/club.ics"
            let none = try await client.send(sim, path)
            #expect(none.status == 401)
            #expect(none.body == "Unauthorized")
            #expect(none.headers["www-authenticate"].first?.hasPrefix("Basic realm=") == true)
            let wrong = "Basic " + Data("\(ICSSimulator.demoUser):nope".utf8).base64EncodedString()
            #expect(try await client.send(.GET, sim, path, headers: [("Authorization", wrong)]).status == 401)
            let bearer = [("Authorization", "Bearer \(ICSSimulator.demoToken)")]
            #expect(try await client.send(.GET, sim, path, headers: bearer).status == 401)
            #expect(try await client.send(.GET, sim, path, headers: [("Authorization", "Basic !!!")]).status == 401)
            let lower = [("Authorization", Self.basic[0].1.replacingOccurrences(of: "Basic", with: "basic"))]
            #expect(try await client.send(.GET, sim, path, headers: lower).status == 200)

            let r = try await client.send(.GET, sim, path, headers: Self.basic)
            #expect(r.status == 200)
            #expect(r.body.contains("PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN\r\n"))
            #expect(r.body.contains("BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\n"))
            let events = ICSTestParser.events(r.body)
            #expect(events.count == 5)
            let starts = events.compactMap { $0.first { $0.name == "DTSTART" } }
            #expect(starts.allSatisfy { $0.params == ";TZID=W. Europe Standard Time" })
            // Saturdays: the last one and the next four; the next is away, 10:15.
            #expect(
                starts.map(\.value) == [
                    "20261121T090000", "20261128T101500", "20261205T090000", "20261212T113000", "20261219T090000",
                ])
            let location = events[0].first { $0.name == "LOCATION" }?.value
            #expect(location == "Sportpark Middenhoven\\, veld 4\\, Amstelveen")
            #expect(events[0].first { $0.name == "SUMMARY" }?.params == ";LANGUAGE=nl-NL")
        }
    }

    @Test func workFeedNeedsBearerAtTheSecretAddress() async throws {
        try await withICSSimulator { sim, client in
            let path = ICSSimulator.demoSecretPath
            let none = try await client.send(sim, path)
            #expect(none.status == 401)
            #expect(none.headers["www-authenticate"].first == #"Bearer realm="calendar""#)
            let wrong = try await client.send(.GET, sim, path, headers: [("Authorization", "Bearer nope")])
            #expect(wrong.status == 401)
            #expect(wrong.headers["www-authenticate"].first == #"Bearer realm="calendar", error="invalid_token""#)
            #expect(try await client.send(.GET, sim, path, headers: Self.basic).status == 401)

            let r = try await client.ics(sim, "work")
            #expect(r.status == 200)
            let events = ICSTestParser.events(r.body)
            let starts = events.compactMap { $0.first { $0.name == "DTSTART" } }
            #expect(starts.allSatisfy { $0.params.isEmpty && $0.value.hasSuffix("Z") })
            // 10:00 in Amsterdam (UTC+1 in November).
            let review = try #require(
                events.first { $0.contains { $0.name == "SUMMARY" && $0.value == "Roadmap review" } })
            #expect(review.first { $0.name == "DTSTART" }?.value == "20261123T090000Z")
            let monthly = try #require(events.first { $0.contains { $0.name == "RRULE" } })
            #expect(monthly.first { $0.name == "RRULE" }?.value == "FREQ=MONTHLY;BYDAY=-1FR")
            #expect(monthly.first { $0.name == "DTSTART" }?.value == "20261030T150000Z")
        }
    }

    @Test(arguments: ["America/Los_Angeles", "Pacific/Auckland", "Europe/Amsterdam"])
    func seedHasEventsTodayInTheHouseholdZone(zoneID: String) async throws {
        let zone = try #require(TimeZone(identifier: zoneID))
        for seedDay in [testSeedDay, "2027-07-02", LocalDate.today(in: zone).description] {
            let feeds = ICSSeed.feeds(seedDay: seedDay, timeZone: zone)
            #expect(feeds.map(\.name) == ICSSimulator.demoCalendars.map(\.name))
            let days = feeds.flatMap { ICSTestParser.events($0.body) }.compactMap {
                ICSTestParser.startDay($0, in: zone)
            }
            #expect(days.contains { $0.day == seedDay && $0.allDay }, "\(zoneID) \(seedDay)")
            #expect(days.filter { $0.day == seedDay && !$0.allDay }.count >= 2, "\(zoneID) \(seedDay)")
            // And in the coming week.
            let week = (1...7).map { LocalDate(dayNumber: LocalDate(seedDay)!.dayNumber + $0).description }
            #expect(days.filter { week.contains($0.day) }.count >= 5, "\(zoneID) \(seedDay)")
        }
        // Served the same way: the work feed's today is local office hours.
        try await withICSSimulator(.init(seedDay: testSeedDay, timeZone: zone)) { sim, client in
            let r = try await client.ics(sim, "work")
            #expect(r.body.contains("X-WR-TIMEZONE:\(zoneID)\r\n"))
            let today = ICSTestParser.events(r.body).compactMap { ICSTestParser.startDay($0, in: zone) }
            #expect(today.filter { $0.day == testSeedDay }.count == 2)
        }
    }

    @Test func everySeedDayOfAYearGivesWellFormedFeeds() {
        let zone = TimeZone(identifier: "Pacific/Auckland")!
        let first = LocalDate("2026-01-01")!.dayNumber
        for offset in stride(from: 0, to: 366, by: 3) {
            let day = LocalDate(dayNumber: first + offset).description
            let feeds = ICSSeed.feeds(seedDay: day, timeZone: zone)
            #expect(feeds.count == 4)
            for feed in feeds {
                let lines = ICSTestParser.lines(feed.body)
                #expect(lines.filter { $0.name == "BEGIN" }.count == lines.filter { $0.name == "END" }.count)
                #expect(feed.body.hasSuffix("END:VCALENDAR\r\n"))
            }
        }
        // Deterministic: the same seed gives the same bytes.
        #expect(
            ICSSeed.feeds(seedDay: testSeedDay, timeZone: testTimeZone).map(\.body)
                == ICSSeed.feeds(seedDay: testSeedDay, timeZone: testTimeZone).map(\.body))
    }

    // MARK: - Conditional GET

    @Test func conditionalGetByETagAndDate() async throws {
        try await withICSSimulator { sim, client in
            let first = try await client.ics(sim, "school")
            let etag = try #require(first.headers["etag"].first)
            let lastModified = try #require(first.headers["last-modified"].first)

            let matched = try await client.ics(sim, "school", headers: [("If-None-Match", etag)])
            #expect(matched.status == 304)
            #expect(matched.body.isEmpty)
            #expect(matched.headers["etag"].first == etag)
            #expect(matched.headers["last-modified"].first == lastModified)
            #expect(try await client.ics(sim, "school", headers: [("If-None-Match", "W/\(etag)")]).status == 304)
            #expect(try await client.ics(sim, "school", headers: [("If-None-Match", "\"x\", \(etag)")]).status == 304)
            #expect(try await client.ics(sim, "school", headers: [("If-None-Match", "*")]).status == 304)
            let other = try await client.ics(sim, "school", headers: [("If-None-Match", "\"other\"")])
            #expect(other.status == 200)
            #expect(other.body == first.body)

            let since = try await client.ics(sim, "school", headers: [("If-Modified-Since", lastModified)])
            #expect(since.status == 304)
            let later = Civil.httpDate(Civil.parseHTTPDate(lastModified)! + 3600)
            #expect(try await client.ics(sim, "school", headers: [("If-Modified-Since", later)]).status == 304)
            let earlier = Civil.httpDate(Civil.parseHTTPDate(lastModified)! - 1)
            #expect(try await client.ics(sim, "school", headers: [("If-Modified-Since", earlier)]).status == 200)
            #expect(try await client.ics(sim, "school", headers: [("If-Modified-Since", "garbage")]).status == 200)
            // If-None-Match wins over If-Modified-Since.
            let both = try await client.ics(
                sim, "school", headers: [("If-None-Match", "\"other\""), ("If-Modified-Since", lastModified)])
            #expect(both.status == 200)

            // HEAD: the headers of a GET, no body.
            let head = try await client.ics(sim, "school", method: .HEAD)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.headers["etag"].first == etag)
            #expect(head.headers["content-length"].first == String(first.body.utf8.count))
            #expect(head.headers["content-type"].first == "text/calendar; charset=utf-8")
            #expect(
                try await client.ics(sim, "school", method: .HEAD, headers: [("If-None-Match", etag)]).status == 304)

            // Auth comes first: a matching validator without credentials is still a 401.
            let club = try await client.ics(sim, "club")
            let clubTag = try #require(club.headers["etag"].first)
            let anonymous = try await client.send(
                .GET, sim, "/calendars/club.ics", headers: [("If-None-Match", clubTag)])
            #expect(anonymous.status == 401)
            #expect(try await client.ics(sim, "club", headers: [("If-None-Match", clubTag)]).status == 304)
        }
    }

    @Test func notModifiedOnTheWireHasNoBody() async throws {
        try await withICSSimulator { sim, client in
            let etag = try #require(try await client.ics(sim, "holidays").headers["etag"].first)
            let outcome = await rawExchange(
                port: sim.port,
                request:
                    "GET /calendars/holidays.ics HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\nConnection: close\r\n\r\n"
            )
            guard case .answered(let text) = outcome else {
                Issue.record("no answer: \(outcome)")
                return
            }
            #expect(text.hasPrefix("HTTP/1.1 304 Not Modified\r\n"))
            #expect(text.hasSuffix("\r\n\r\n"))
            #expect(!text.lowercased().contains("content-type"))
            // HEAD never has a body, whatever the status.
            for path in ["/calendars/nope.ics", "/calendars/club.ics", "/calendars/school.ics"] {
                let head = await rawExchange(
                    port: sim.port, request: "HEAD \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                guard case .answered(let text) = head else {
                    Issue.record("no answer to HEAD \(path): \(head)")
                    continue
                }
                #expect(text.hasSuffix("\r\n\r\n"), "\(path)")
                #expect(text.lowercased().contains("content-length: "), "\(path)")
            }
        }
    }

    // MARK: - Changing feeds

    @Test func replaceAndDeleteCalendars() async throws {
        try await withICSSimulator { sim, client in
            let before = try await client.ics(sim, "school")
            let oldTag = try #require(before.headers["etag"].first)
            let oldDate = try #require(before.headers["last-modified"].first)

            let replacement = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\nEND:VCALENDAR\r\n"
            let posted = try await client.send(
                .POST, sim, "/_sim/calendars/school", json: replacement, headers: [("Content-Type", "text/calendar")])
            #expect(posted.status == 200)
            #expect(posted.object["path"] as? String == "/calendars/school.ics")
            let newTag = try #require(posted.object["etag"] as? String)
            #expect(newTag != oldTag)

            let after = try await client.ics(sim, "school", headers: [("If-None-Match", oldTag)])
            #expect(after.status == 200)
            #expect(after.body == replacement)
            #expect(after.headers["etag"].first == newTag)
            let newDate = try #require(after.headers["last-modified"].first)
            #expect(Civil.parseHTTPDate(newDate)! > Civil.parseHTTPDate(oldDate)!)
            #expect(try await client.ics(sim, "school", headers: [("If-Modified-Since", oldDate)]).status == 200)
            #expect(try await client.ics(sim, "school", headers: [("If-None-Match", newTag)]).status == 304)

            // Two changes in one second still move Last-Modified on.
            _ = try await client.send(.POST, sim, "/_sim/calendars/school", json: replacement + " ")
            let third = try await client.ics(sim, "school")
            let thirdDate = try #require(third.headers["last-modified"].first)
            #expect(Civil.parseHTTPDate(thirdDate)! > Civil.parseHTTPDate(newDate)!)
            #expect(try await client.ics(sim, "school", headers: [("If-Modified-Since", newDate)]).status == 200)

            // Deleted: 404 until posted again, at the same path and with the same auth.
            #expect(try await client.send(.DELETE, sim, "/_sim/calendars/club").status == 200)
            #expect(try await client.ics(sim, "club").status == 404)
            #expect(try await client.send(.DELETE, sim, "/_sim/calendars/club").status == 404)
            #expect(try await client.send(.POST, sim, "/_sim/calendars/club", json: replacement).status == 200)
            #expect(try await client.send(sim, "/calendars/club.ics").status == 401)
            #expect(try await client.ics(sim, "club").body == replacement)

            // A new name is served publicly.
            #expect(try await client.send(.POST, sim, "/_sim/calendars/extra", json: replacement).status == 200)
            #expect(try await client.send(sim, "/calendars/extra.ics").body == replacement)
            let list = try await client.send(sim, "/_sim/calendars")
            #expect(list.array.compactMap { $0["name"] as? String } == ["club", "extra", "holidays", "school", "work"])

            let one = try await client.send(sim, "/_sim/calendars/club")
            #expect(one.object["auth"] as? String == "basic")
            #expect(one.object["bytes"] as? Int == replacement.utf8.count)

            // Bad requests to the control route.
            #expect(try await client.send(.POST, sim, "/_sim/calendars/school").status == 400)
            #expect(try await client.send(.POST, sim, "/_sim/calendars/Bad%20Name", json: "x").status == 404)

            // Reset brings the seed back, byte for byte.
            #expect(try await client.send(.POST, sim, "/_sim/reset").object["calendars"] as? Int == 4)
            let reset = try await client.ics(sim, "school")
            #expect(reset.body == before.body)
            #expect(reset.headers["etag"].first == oldTag)
            #expect(try await client.send(sim, "/calendars/extra.ics").status == 404)
        }
    }

    @Test func malformedFeeds() async throws {
        try await withICSSimulator { sim, client in
            let good = try await client.ics(sim, "school")
            let on = try await client.send(.POST, sim, "/_sim/options", json: #"{"ics_malformed":true}"#)
            #expect(on.object["ics_malformed"] as? Bool == true)
            let broken = try await client.ics(sim, "school")
            #expect(broken.status == 200)
            #expect(broken.body.hasPrefix("BEGIN:VCALENDAR\r\n"))
            #expect(!broken.body.contains("END:VCALENDAR"))
            #expect(broken.headers["etag"].first != good.headers["etag"].first)
            #expect(broken.headers["etag"].first == ICSFeed.etag(broken.body))
            #expect(try await client.send(.POST, sim, "/_sim/options", json: #"{"ics_malformed":1}"#).status == 400)
            _ = try await client.send(.POST, sim, "/_sim/options", json: #"{"ics_malformed":false}"#)
            #expect(try await client.ics(sim, "school").body == good.body)

            // Or any body, verbatim.
            _ = try await client.send(.POST, sim, "/_sim/calendars/holidays", json: ICSSimulator.malformedFeed)
            #expect(try await client.ics(sim, "holidays").body == ICSSimulator.malformedFeed)
        }
    }

    // MARK: - Faults and counts

    @Test func faults() async throws {
        try await withICSSimulator { sim, client in
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":503}"#)
            let failed = try await client.ics(sim, "school")
            #expect(failed.status == 503)
            #expect(failed.body == "simulated failure")
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":429}"#)
            #expect(try await client.ics(sim, "school").headers["retry-after"].first == "60")
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"latency_ms":150}"#)
            let started = ContinuousClock.now
            #expect(try await client.ics(sim, "school").status == 200)
            #expect(ContinuousClock.now - started >= .milliseconds(150))
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"down":"reset"}"#)
            await #expect(throws: (any Error).self) { _ = try await client.ics(sim, "school") }
            _ = try await client.send(.DELETE, sim, "/_sim/faults")
            #expect(try await client.ics(sim, "school").status == 200)
            #expect(sim.control.calls("GET /calendars/school.ics") == 5)
        }
    }

    @Test func callCounts() async throws {
        try await withICSSimulator { sim, client in
            let first = try await client.ics(sim, "school")
            let etag = try #require(first.headers["etag"].first)
            _ = try await client.ics(sim, "school", headers: [("If-None-Match", etag)])
            _ = try await client.ics(sim, "school", headers: [("If-None-Match", etag)])
            _ = try await client.send(sim, "/calendars/club.ics")
            _ = try await client.ics(sim, "club")
            _ = try await client.send(sim, "/calendars/missing.ics")
            let calls = try await client.send(sim, "/_sim/calls").object
            let counts = calls["calls"] as? [String: Int]
            #expect(counts?["GET /calendars/school.ics"] == 3)
            #expect(counts?["GET /calendars/club.ics"] == 2)
            #expect(counts?["GET /calendars/missing.ics"] == 1)
            #expect(calls["not_modified"] as? [String: Int] == ["GET /calendars/school.ics": 2])
            let statuses = calls["statuses"] as? [String: [String: Int]]
            #expect(statuses?["GET /calendars/school.ics"] == ["200": 1, "304": 2])
            #expect(statuses?["GET /calendars/club.ics"] == ["200": 1, "401": 1])
            #expect(statuses?["GET /calendars/missing.ics"] == ["404": 1])
            #expect(calls["total"] as? Int == 6)

            _ = try await client.send(.POST, sim, "/_sim/reset")
            let cleared = try await client.send(sim, "/_sim/calls").object
            #expect((cleared["calls"] as? [String: Int])?.isEmpty == true)
            #expect(cleared["total"] as? Int == 0)
        }
    }

    // MARK: - An independent parser

    /// Parses every demo feed with Python's `icalendar` when it is installed (skipped otherwise).
    @Test func feedsParseWithPythonICalendar() async throws {
        guard (try? await ChildProcess.run(["python3", "-c", "import icalendar"]))?.status == 0 else { return }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ics-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for feed in ICSSeed.feeds(seedDay: testSeedDay, timeZone: testTimeZone) {
            try Data(feed.body.utf8).write(to: dir.appendingPathComponent("\(feed.name).ics"))
        }
        let script = """
            import icalendar, pathlib, sys
            for p in sorted(pathlib.Path(sys.argv[1]).glob("*.ics")):
                cal = icalendar.Calendar.from_ical(p.read_bytes())
                events = cal.walk("VEVENT")
                assert events, p
                for e in events:
                    e.decoded("DTSTART"); str(e.get("SUMMARY"))
                print(p.stem, len(events))
            """
        let run = try await ChildProcess.run(["python3", "-c", script, dir.path])
        let text = String(decoding: run.output, as: UTF8.self) + run.error
        #expect(run.status == 0, "\(text)")
        #expect(text.contains("school 9"))
    }
}
