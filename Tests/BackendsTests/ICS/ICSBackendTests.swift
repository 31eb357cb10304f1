import Foundation
import Model
import Testing

@testable import Backends

/// The ICS backend around the reader: its config section, when a feed is fetched again, and
/// `ics.events` over local files (the HTTP side, with ETags and 304s, runs against the
/// simulator in ICSFeedHTTPTests).
@Suite("ICS backend")
struct ICSBackendTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!

    static let feed = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:gym@school\r
        DTSTART;TZID=Europe/Amsterdam:20261124T083000\r
        DTEND;TZID=Europe/Amsterdam:20261124T091500\r
        RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6\r
        EXDATE;TZID=Europe/Amsterdam:20261126T083000\r
        SUMMARY:Gym\\, hall 2\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:camp@school\r
        DTSTART;TZID=Europe/Amsterdam:20261125T200000\r
        DTEND;TZID=Europe/Amsterdam:20261126T090000\r
        SUMMARY:Camp night\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:broken@school\r
        DTSTART:not-a-date\r
        SUMMARY:Broken\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-ics-\(UUID()).ics").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func context(
        _ calendars: [ICSSettings.Calendar], now: Date = Date(), timeout: ConfigDuration = ICSSettings.defaultTimeout
    ) -> OperationContext {
        var context = SimulatorBackedTest.context(
            ProfileConfig([ICSSettings(calendars: calendars, timeout: timeout)]), zone: zone)
        context.clock = RequestClock(now: now, timeZone: zone)
        return context
    }

    static func day(_ text: String) -> LocalDate { LocalDate(text)! }

    static func events(_ output: OperationOutput) throws -> [Event] {
        try JSONDecoder().decode([Event].self, from: output.body)
    }

    // MARK: settings

    func decode(_ yaml: String) throws -> ICSSettings {
        try YAMLDocument(file: "test.yaml").decode(ICSSettings.self, from: yaml)
    }

    @Test func settingsDecodeWithDefaultsAndRefuseNonsense() throws {
        let settings = try decode(
            """
            calendars:
              - name: school
                url: https://example.org/private-abc123/basic.ics
                color: "#2e7d32"
              - name: holidays
                url: /srv/holidays.ics
                refresh: 1h
              - name: club
                url: https://club.example/feed.ics
                username: anna
                password: s3cret-pass
            """)
        #expect(settings.calendars.map(\.name) == ["school", "holidays", "club"])
        #expect(settings.calendars[0].refresh.seconds == 900)
        #expect(settings.calendars[1].refresh.seconds == 3600)
        #expect(settings.calendars[0].shownSource == "https://example.org/…")
        #expect(settings.calendars[1].source == .file("/srv/holidays.ics"))
        #expect(settings.calendars[2].auth == "basic")
        #expect(settings.endpoints.map(\.baseURL) == ["https://example.org", "https://club.example"])
        // The address is a secret (a secret iCal address holds its key in the path).
        let secrets = Set(Secret.all(in: settings).map { $0.reveal() })
        #expect(secrets.contains("https://example.org/private-abc123/basic.ics"))
        #expect(secrets.contains("s3cret-pass"))
        #expect(!"\(settings)".contains("abc123"))

        for bad in [
            "calendars: []",
            "calendars:\n  - { name: School, url: https://a.example/x.ics }",
            "calendars:\n  - { name: a, url: ftp://a.example/x.ics }",
            "calendars:\n  - { name: a, url: https://a.example/x.ics, color: green }",
            "calendars:\n  - { name: a, url: https://a.example/x.ics, refresh: 10s }",
            "calendars:\n  - { name: a, url: https://a.example/x.ics, username: anna }",
            "calendars:\n  - { name: a, url: https://a.example/x.ics, token: t, username: u, password: p }",
            "calendars:\n  - { name: a, url: /x.ics, token: t }",
            "calendars:\n  - { name: a, url: https://a.example/x.ics }\n  - { name: a, url: https://b.example/y.ics }",
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try decode(bad) }
        }
    }

    // MARK: refresh decision

    @Test func aFeedIsAskedAgainOnlyAfterItsRefreshAndThenConditionally() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(
            ICSRefreshDecision.decide(copy: nil, lastFailure: nil, refresh: 900, now: now)
                == .fetch(ifNoneMatch: nil, ifModifiedSince: nil))
        let copy = ICSFeedCopy(
            calendar: .failure(.notICalendar("x")), byteCount: 1, etag: "\"v1\"",
            lastModified: "Tue, 24 Nov 2026 08:00:00 GMT", fileModified: nil, checkedAt: now, changedAt: now, digest: 1)
        #expect(ICSRefreshDecision.decide(copy: copy, lastFailure: nil, refresh: 900, now: now + 899) == .useCopy)
        #expect(
            ICSRefreshDecision.decide(copy: copy, lastFailure: nil, refresh: 900, now: now + 900)
                == .fetch(ifNoneMatch: "\"v1\"", ifModifiedSince: "Tue, 24 Nov 2026 08:00:00 GMT"))
        // A failed check is not repeated at every request: a minute passes first.
        #expect(
            ICSRefreshDecision.decide(copy: copy, lastFailure: now + 950, refresh: 900, now: now + 1000) == .useCopy)
        #expect(
            ICSRefreshDecision.decide(copy: copy, lastFailure: now + 950, refresh: 900, now: now + 1011)
                != .useCopy)
        // A clock that went back does not freeze the copy.
        #expect(ICSRefreshDecision.decide(copy: copy, lastFailure: nil, refresh: 900, now: now - 10) != .useCopy)
    }

    // MARK: events

    @Test func eventsOfTheAskedDaysWithTheirCalendarAndIssues() async throws {
        let path = try Self.file(Self.feed)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let calendar = ICSSettings.Calendar(name: "school", url: path, color: "#2e7d32")
        let operation = ICSEventsOperation(feeds: ICSFeedStore(), workers: ICSWorkers(width: 2))
        let context = Self.context([calendar])
        let output = try await operation.fetch(
            ["from": .date(Self.day("2026-11-24")), "to": .date(Self.day("2026-11-26"))], context: context)
        let events = try Self.events(output)
        // Tuesday's gym, the camp night (crossing midnight: Wednesday and Thursday), Thursday's gym is an EXDATE.
        #expect(events.map(\.title) == ["Gym, hall 2", "Camp night"])
        #expect(events.allSatisfy { $0.calendar == "school" && $0.color == "#2e7d32" })
        #expect(events[0].start == "2026-11-24T08:30:00+01:00")
        #expect(events[1].end == "2026-11-26T09:00:00+01:00")
        #expect(output.issues.contains { $0.scope == "school" && $0.code == "event_skipped" })

        // Thursday alone still has the camp night's morning.
        let thursday = try Self.events(
            try await operation.fetch(
                ["from": .date(Self.day("2026-11-26")), "to": .date(Self.day("2026-11-26"))], context: context))
        #expect(thursday.map(\.title) == ["Camp night"])
        // Ids are stable: the same occurrence has the same id on every answer.
        #expect(thursday[0].id == events[1].id)
    }

    @Test func aFeedIsReadOncePerRefreshAndAChangeShowsAfterIt() async throws {
        let path = try Self.file(Self.feed)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let calendar = ICSSettings.Calendar(name: "school", url: path, refresh: .seconds(600))
        let store = ICSFeedStore()
        let operation = ICSEventsOperation(feeds: store, workers: ICSWorkers(width: 2))
        let start = Date()
        let arguments: [String: ArgumentValue] = [
            "from": .date(Self.day("2026-11-25")), "to": .date(Self.day("2026-11-25")),
        ]
        #expect(
            try Self.events(await operation.fetch(arguments, context: Self.context([calendar], now: start))).count == 1)

        try Self.feed.replacingOccurrences(of: "Camp night", with: "Sleepover").write(
            toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: start.addingTimeInterval(5)], ofItemAtPath: path)
        let soon = try Self.events(await operation.fetch(arguments, context: Self.context([calendar], now: start + 60)))
        #expect(soon.map(\.title) == ["Camp night"], "inside its refresh interval the copy serves")
        let later = try Self.events(
            await operation.fetch(arguments, context: Self.context([calendar], now: start + 601)))
        #expect(later.map(\.title) == ["Sleepover"])
    }

    @Test func aFailingCalendarIsAnIssueAndTheOthersStillAnswer() async throws {
        let path = try Self.file(Self.feed)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let good = ICSSettings.Calendar(name: "school", url: path)
        let gone = ICSSettings.Calendar(name: "gone", url: "/nonexistent/daygate/feed.ics")
        let operation = ICSEventsOperation(feeds: ICSFeedStore(), workers: ICSWorkers(width: 2))
        let arguments: [String: ArgumentValue] = [
            "from": .date(Self.day("2026-11-24")), "to": .date(Self.day("2026-11-24")),
        ]
        let output = try await operation.fetch(arguments, context: Self.context([good, gone]))
        #expect(try Self.events(output).count == 1)
        #expect(output.issues.contains { $0.scope == "gone" && $0.code == "upstream_unreachable" })

        // With every calendar failing the section fails (and the cache serves what it kept).
        await #expect(throws: BackendError.self) {
            _ = try await operation.fetch(arguments, context: Self.context([gone]))
        }
    }

    @Test func notICalendarIsAnIssueNamingTheCalendar() async throws {
        let path = try Self.file("<html><body>Sign in</body></html>")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let operation = ICSEventsOperation(feeds: ICSFeedStore(), workers: ICSWorkers(width: 2))
        let output = try await operation.fetch(
            ["from": .date(Self.day("2026-11-24")), "to": .date(Self.day("2026-11-24"))],
            context: Self.context([ICSSettings.Calendar(name: "school", url: path)]))
        #expect(try Self.events(output).isEmpty)
        #expect(output.issues.first?.code == "bad_feed")
        #expect(output.issues.first?.message.contains("school") == true)
    }

    @Test func anUnknownCalendarIsABadParameter() throws {
        let profile = ProfileConfig([ICSSettings(calendars: [ICSSettings.Calendar(name: "school", url: "/x.ics")])])
        #expect(throws: ErrorDetail.self) {
            try ICSEventsOperation().validate(["calendar": .string("work")], for: profile)
        }
        try ICSEventsOperation().validate(["calendar": .string("school")], for: profile)
    }

    @Test func aCopyNobodyNeedsForADayIsDropped() async throws {
        let path = try Self.file(Self.feed)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = ICSFeedStore()
        let operation = ICSEventsOperation(feeds: store, workers: ICSWorkers(width: 2))
        let arguments: [String: ArgumentValue] = [
            "from": .date(Self.day("2026-11-24")), "to": .date(Self.day("2026-11-24")),
        ]
        let start = Date()
        let old = ICSSettings.Calendar(name: "old", url: path)
        let kept = ICSSettings.Calendar(name: "kept", url: path)
        _ = try await operation.fetch(arguments, context: Self.context([old, kept], now: start))
        #expect(await store.keys.count == 2)
        // "old" leaves the config; "kept" is still asked for.
        _ = try await operation.fetch(arguments, context: Self.context([kept], now: start + 43_200))
        #expect(await store.keys.count == 2)
        _ = try await operation.fetch(arguments, context: Self.context([kept], now: start + 86_401))
        #expect(await store.keys.count == 1)
    }
}
