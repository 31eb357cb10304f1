import CalendarReader
import Foundation
import Testing

@Suite("ICS time zones")
struct ICSTimeZoneTests {
    let resolver = ICSTimeZoneResolver(household: ICSTestSupport.amsterdam)

    @Test func ianaPrefixedAndQuoted() {
        #expect(resolver.zone(for: "Europe/Berlin").zone.identifier == "Europe/Berlin")
        #expect(resolver.zone(for: "/mozilla.org/20070129_1/America/New_York").zone.identifier == "America/New_York")
        #expect(
            resolver.zone(for: "/freeassociation.sourceforge.net/Tzfile/America/Argentina/Buenos_Aires").zone.identifier
                == "America/Argentina/Buenos_Aires")
        #expect(resolver.zone(for: "\"Europe/Paris\"").zone.identifier == "Europe/Paris")
        #expect(resolver.zone(for: "Europe/Paris").note == nil)
    }

    @Test func windowsNames() {
        #expect(resolver.zone(for: "W. Europe Standard Time").zone.identifier == "Europe/Berlin")
        #expect(resolver.zone(for: "Pacific Standard Time").zone.identifier == "America/Los_Angeles")
        #expect(resolver.zone(for: "Romance Standard Time").zone.identifier == "Europe/Paris")
        #expect(resolver.zone(for: "new zealand standard time").zone.identifier == "Pacific/Auckland")
    }

    @Test func windowsTableIsLargeAndEveryTargetExists() {
        #expect(WindowsTimeZones.table.count >= 60)
        for (name, iana) in WindowsTimeZones.table {
            #expect(TimeZone(identifier: iana) != nil, "\(name) → \(iana) is not a zone here")
        }
    }

    @Test func fixedOffsetsAndUnknown() {
        let fixed = resolver.zone(for: "GMT+05:30").zone
        #expect(fixed.offset(at: Date()) == 19_800)
        let unknown = resolver.zone(for: "Mars/Olympus_Mons")
        #expect(unknown.zone.identifier == "Europe/Amsterdam")
        #expect(unknown.note?.contains("unknown TZID") == true)
    }

    @Test func gapAndOverlapFollowRFC5545() {
        let zone = ICSZone.system(ICSTestSupport.amsterdam)
        // 02:30 on 2026-03-29 does not exist: read with the offset before the gap (+01:00) → 03:30 CEST.
        let gap = zone.instant(of: ICSTestSupport.wall("20260329T023000"))
        #expect(ICSTestSupport.iso(gap, ICSTestSupport.amsterdam) == "2026-03-29T03:30:00+02:00")
        // 02:30 on 2026-10-25 happens twice: the first one (+02:00).
        let overlap = zone.instant(of: ICSTestSupport.wall("20261025T023000"))
        #expect(ICSTestSupport.iso(overlap, ICSTestSupport.amsterdam) == "2026-10-25T02:30:00+02:00")
    }

    @Test func vtimezoneRulesMatchTheSystemZone() throws {
        let text = ICSTestSupport.feed(ICSTestSupport.centralEuropeanVTimeZone("My Amsterdam"))
        let parsed = try ICSParser.parse(Array(text.utf8))
        let definition = try #require(ICSVTimeZone(parsed.calendars[0].components[0]))
        let custom = ICSZone.defined(definition)
        let system = ICSZone.system(ICSTestSupport.amsterdam)
        var instant = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        for _ in 0..<(365 * 4) {
            #expect(custom.offset(at: instant) == system.offset(at: instant), "offset at \(instant)")
            instant.addTimeInterval(6 * 3600)
        }
        for wall in ["20260329T013000", "20260329T033000", "20261025T023000", "20261025T033000", "20260701T120000"] {
            #expect(custom.instant(of: ICSTestSupport.wall(wall)) == system.instant(of: ICSTestSupport.wall(wall)))
        }
    }

    @Test func vtimezoneWithRDatesAndHistoricRules() throws {
        let bytes = try ICSTestSupport.fixture("icalendar_america_new_york.ics")
        let calendar = try ICSCalendar(bytes: bytes, household: ICSTestSupport.amsterdam)
        let event = try #require(calendar.events.first)
        guard case .dateTime(_, .defined(let definition)) = event.start else {
            Issue.record("custom_America/New_York must be read from its VTIMEZONE")
            return
        }
        let newYork = TimeZone(identifier: "America/New_York")!
        for timestamp in [157_766_400, 165_000_000, 410_000_000, 1_000_000_000, 1_409_313_600, 1_790_000_000] {
            let instant = Date(timeIntervalSince1970: TimeInterval(timestamp))
            #expect(definition.offset(at: instant) == newYork.secondsFromGMT(for: instant), "at \(instant)")
        }
        #expect(event.start.instant(household: .gmt) == Date(timeIntervalSince1970: 1_409_313_600))
    }

    @Test func offsetParsing() {
        #expect(ICSVTimeZone.parseOffset("+0100") == 3600)
        #expect(ICSVTimeZone.parseOffset("-0530") == -19_800)
        #expect(ICSVTimeZone.parseOffset("+013045") == 5445)
        #expect(ICSVTimeZone.parseOffset("0100") == nil)
    }
}
