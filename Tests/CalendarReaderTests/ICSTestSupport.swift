import CalendarReader
import Foundation
import Model

/// Shared helpers of the ICS reader tests.
enum ICSTestSupport {
    static let amsterdam = TimeZone(identifier: "Europe/Amsterdam")!
    static let losAngeles = TimeZone(identifier: "America/Los_Angeles")!
    static let auckland = TimeZone(identifier: "Pacific/Auckland")!

    /// A feed's own VTIMEZONE named `tzid` with Central European rules (as Outlook writes them).
    static func centralEuropeanVTimeZone(_ tzid: String) -> String {
        """
        BEGIN:VTIMEZONE
        TZID:\(tzid)
        BEGIN:STANDARD
        DTSTART:16011028T030000
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0100
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:16010325T020000
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        END:DAYLIGHT
        END:VTIMEZONE
        """
    }

    /// `Tests/Fixtures/ics/<name>`, found from this file's path.
    static func fixtureURL(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/ics/\(name)")
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtureURL(name)))
    }

    /// A feed around `body` (VEVENTs, VTIMEZONEs), CRLF-terminated.
    static func feed(_ body: String) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//daygate//tests//EN"]
            + body.split(separator: "\n").map(String.init)
            + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    static func day(_ text: String) -> LocalDate { LocalDate(text)! }

    static func wall(_ text: String) -> ICSLocalDateTime { ICSDateTimeText(text)!.wall }

    /// `2026-03-29T10:00:00+02:00`, as Python's `isoformat()` writes it.
    static func iso(_ date: Date, _ zone: TimeZone) -> String {
        let wall = ICSZone.system(zone).wall(at: date)
        let offset = zone.secondsFromGMT(for: date)
        func pad(_ value: Int, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let sign = offset < 0 ? "-" : "+"
        return "\(pad(wall.year, 4))-\(pad(wall.month))-\(pad(wall.day))T\(pad(wall.hour)):\(pad(wall.minute)):"
            + "\(pad(wall.second))\(sign)\(pad(abs(offset) / 3600)):\(pad(abs(offset) % 3600 / 60))"
    }

    /// The start as the reference script prints it: a date for all-day events, ISO with offset otherwise.
    static func referenceStart(_ occurrence: ICSOccurrence, _ zone: TimeZone) -> String {
        if occurrence.isAllDay, let date = occurrence.startDate { return date.description }
        return iso(occurrence.start, zone)
    }

    /// One local day as daygate and as the reference script (`reference`, its answer for a
    /// whole window) see it: `start uid summary` of each occurrence, sorted. An event without
    /// UID is called "line-N" here and "" by the reference.
    static func referenceLines(_ day: ICSDay, zone: TimeZone, reference: [String: [[String: String]]]) -> (
        ours: [String], theirs: [String]
    ) {
        let ours = day.occurrences.map {
            "\(referenceStart($0, zone)) \($0.uid.hasPrefix("line-") ? "" : $0.uid) \($0.summary ?? "")"
        }.sorted()
        let theirs = (reference[day.date.description] ?? []).map {
            "\($0["start"] ?? "") \($0["uid"] ?? "") \($0["summary"] ?? "")"
        }.sorted()
        return (ours, theirs)
    }

    /// The occurrences of `text` over `[from, to)`, read in `zone`.
    static func expand(_ text: String, _ zone: TimeZone = amsterdam, from: String, to: String) throws -> ICSExpansion {
        try ICSCalendar(text: text, household: zone).expand(from: day(from), to: day(to))
    }

    /// `start summary` of each occurrence, in order.
    static func starts(_ expansion: ICSExpansion) -> [String] {
        expansion.occurrences.map { referenceStart($0, expansion.zone) }
    }
}
