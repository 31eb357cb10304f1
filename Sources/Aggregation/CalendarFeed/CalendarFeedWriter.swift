import Backends
import Foundation
import Model

/// Writes the household's calendar feed as RFC 5545 text: one VCALENDAR with a VTIMEZONE for
/// the household's zone (its real transitions over the feed's years, so every calendar app shows
/// the same wall times, DST changes included) and one VEVENT per entry, timed entries in that
/// zone (`DTSTART;TZID=…`), all-day entries as dates.
public struct CalendarFeedWriter: Sendable {
    public var zone: TimeZone
    public var name: String
    /// How often calendar apps should poll (`REFRESH-INTERVAL`, `X-PUBLISHED-TTL`).
    public var refreshMinutes: Int

    public init(zone: TimeZone, name: String, refreshMinutes: Int = 15) {
        self.zone = zone
        self.name = name
        self.refreshMinutes = refreshMinutes
    }

    /// The feed of `entries` over `window`'s days; `stamp` is `DTSTAMP` (when the feed was made).
    public func write(_ entries: [CalendarFeedEntry], window: CalendarFeedWindow, stamp: Date) -> String {
        var w = ICSWriter()
        w.lines([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//daygate//calendar feed//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
        ])
        w.text("X-WR-CALNAME", name)
        w.text("X-WR-TIMEZONE", zone.identifier)
        w.line("REFRESH-INTERVAL;VALUE=DURATION:PT\(refreshMinutes)M")
        w.line("X-PUBLISHED-TTL:PT\(refreshMinutes)M")
        timeZoneComponent(from: window.from.adding(days: -366), to: window.to.adding(days: 366), into: &w)
        let dtstamp = "DTSTAMP:" + Self.basic(stamp, offset: 0) + "Z"
        for entry in entries {
            w.line("BEGIN:VEVENT")
            w.text("UID", entry.uid)
            w.line(dtstamp)
            switch entry.time {
            case .instants(let start, let end):
                w.line("DTSTART;TZID=\(zone.identifier):\(local(start))")
                w.line("DTEND;TZID=\(zone.identifier):\(local(end))")
            case .days(let first, let end):
                w.line("DTSTART;VALUE=DATE:\(Self.basic(first))")
                w.line("DTEND;VALUE=DATE:\(Self.basic(max(end, first.adding(days: 1))))")
            }
            w.text("SUMMARY", entry.summary)
            if let location = entry.location, !location.isEmpty { w.text("LOCATION", location) }
            if let description = entry.description, !description.isEmpty { w.text("DESCRIPTION", description) }
            if !entry.categories.isEmpty {
                w.line("CATEGORIES:" + entry.categories.map(ICSWriter.escape).joined(separator: ","))
            }
            if let status = entry.status { w.line("STATUS:\(status)") }
            w.line("TRANSP:OPAQUE")
            w.line("END:VEVENT")
        }
        w.line("END:VCALENDAR")
        return w.text
    }

    // MARK: - The zone

    /// VTIMEZONE with one observance per transition in `from…to` (local wall time before the
    /// change, as RFC 5545 wants), after one for the offset in force at `from`.
    func timeZoneComponent(from: LocalDate, to: LocalDate, into w: inout ICSWriter) {
        let start = from.start(in: .gmt)
        let end = to.start(in: .gmt)
        w.line("BEGIN:VTIMEZONE")
        w.text("TZID", zone.identifier)
        var offset = zone.secondsFromGMT(for: start)
        observance(at: start, from: offset, to: offset, into: &w)
        var cursor = start
        while let change = zone.nextDaylightSavingTimeTransition(after: cursor), change < end {
            let next = zone.secondsFromGMT(for: change)
            if next != offset { observance(at: change, from: offset, to: next, into: &w) }
            offset = next
            cursor = change
        }
        w.line("END:VTIMEZONE")
    }

    private func observance(at instant: Date, from: Int, to: Int, into w: inout ICSWriter) {
        let kind = zone.isDaylightSavingTime(for: instant) ? "DAYLIGHT" : "STANDARD"
        w.line("BEGIN:\(kind)")
        w.line("DTSTART:" + Self.basic(instant, offset: from))
        w.line("TZOFFSETFROM:" + Self.offset(from))
        w.line("TZOFFSETTO:" + Self.offset(to))
        if let abbreviation = zone.abbreviation(for: instant) { w.text("TZNAME", abbreviation) }
        w.line("END:\(kind)")
    }

    // MARK: - Text

    /// `instant` as the zone's wall time, `YYYYMMDDTHHMMSS`.
    func local(_ instant: Date) -> String {
        Self.basic(instant, offset: zone.secondsFromGMT(for: instant))
    }

    /// `YYYYMMDDTHHMMSS` of `instant` at `offset` seconds from UTC (whole seconds).
    static func basic(_ instant: Date, offset: Int) -> String {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        return Civil.isoString(seconds * Civil.microsPerSecond).replacingOccurrences(of: "-", with: "")
            .replacingOccurrences(of: ":", with: "")
    }

    static func basic(_ day: LocalDate) -> String {
        Civil.pad(day.year, 4) + Civil.pad(day.month, 2) + Civil.pad(day.day, 2)
    }

    /// `+0100`, `-0500`, `+0545`, `+013045` (seconds only when there are some).
    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        var text = sign + Civil.pad(magnitude / 3600, 2) + Civil.pad(magnitude / 60 % 60, 2)
        if magnitude % 60 != 0 { text += Civil.pad(magnitude % 60, 2) }
        return text
    }
}
