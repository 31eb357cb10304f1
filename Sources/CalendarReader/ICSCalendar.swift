import Foundation
import Model

/// An iCalendar feed read for one household: its events (zones resolved) and the problems met.
///
/// ```swift
/// let calendar = try ICSCalendar(text: feed, household: TimeZone(identifier: "Europe/Amsterdam")!)
/// for day in calendar.expand(from: monday, to: monday.adding(days: 7)).days { … }
/// ```
/// Pure: no I/O, no clock. Floating times are read in the household zone.
public struct ICSCalendar: Sendable {
    /// The default input cap: 5 MB.
    public static let defaultMaximumBytes = ICSParser.defaultMaximumBytes

    public let household: TimeZone
    /// Every readable VEVENT, masters and overrides, in feed order.
    public let events: [ICSEvent]
    /// Events skipped and guesses made while reading.
    public let issues: [ICSIssue]
    /// `X-WR-CALNAME`, if the feed names itself.
    public let name: String?
    /// `X-WR-TIMEZONE` (Google, Apple): informational; floating times still use the household zone.
    public let declaredTimeZone: String?

    /// Reads a feed given as text.
    public init(text: String, household: TimeZone, maximumBytes: Int = defaultMaximumBytes) throws(ICSReadError) {
        try self.init(bytes: Array(text.utf8), household: household, maximumBytes: maximumBytes)
    }

    /// Reads a feed given as bytes (UTF-8; invalid sequences are replaced, never fatal).
    public init(bytes: [UInt8], household: TimeZone, maximumBytes: Int = defaultMaximumBytes) throws(ICSReadError) {
        let parsed = try ICSParser.parse(bytes, maximumBytes: maximumBytes)
        var issues = parsed.issues
        var definitions: [ICSVTimeZone] = []
        for calendar in parsed.calendars {
            for component in calendar.components("VTIMEZONE") {
                if let definition = ICSVTimeZone(component) {
                    definitions.append(definition)
                } else {
                    issues.append(
                        ICSIssue(line: component.lineNumber, message: "VTIMEZONE without TZID or observances ignored"))
                }
            }
        }
        let reader = ICSEventReader(resolver: ICSTimeZoneResolver(household: household, definitions: definitions))
        var events: [ICSEvent] = []
        for calendar in parsed.calendars {
            for component in calendar.components("VEVENT") {
                let (event, found) = reader.read(component)
                issues += found
                if let event { events.append(event) }
            }
        }
        self.household = household
        self.events = events
        self.issues = issues
        self.name =
            parsed.calendars.lazy.compactMap { $0.property("X-WR-CALNAME").map { ICSText.unescape($0.value) } }.first
        self.declaredTimeZone =
            parsed.calendars.lazy.compactMap { $0.property("X-WR-TIMEZONE")?.value.trimmingWhitespace }
            .first
    }

    /// The occurrences touching the local days `[from, to)` of the household zone. Each series
    /// is expanded only over that window, with at most `maximumInstances` instances.
    public func expand(
        from: LocalDate, to: LocalDate, maximumInstances: Int = ICSRecurrenceExpander.defaultMaximumInstances
    ) -> ICSExpansion {
        let expander = ICSSeriesExpander(household: household, maximumInstances: maximumInstances)
        var masters: [String: [ICSEvent]] = [:]
        var overrides: [String: [ICSEvent]] = [:]
        var order: [String] = []
        for event in events {
            if masters[event.uid] == nil && overrides[event.uid] == nil { order.append(event.uid) }
            if event.recurrenceID != nil {
                overrides[event.uid, default: []].append(event)
            } else {
                masters[event.uid, default: []].append(event)
            }
        }
        var occurrences: [ICSOccurrence] = []
        var issues: [ICSIssue] = []
        for uid in order {
            let series = masters[uid] ?? []
            let changes = overrides[uid] ?? []
            if series.isEmpty {
                let found = expander.occurrences(master: nil, overrides: changes, from: from, to: to)
                occurrences += found.occurrences
                issues += found.issues
            }
            for (index, master) in series.enumerated() {
                // Overrides belong to the series once, not once per duplicated master.
                let found = expander.occurrences(
                    master: master, overrides: index == 0 ? changes : [], from: from, to: to)
                occurrences += found.occurrences
                issues += found.issues
            }
        }
        occurrences.sort { ($0.start, $0.uid) < ($1.start, $1.uid) }
        return ICSExpansion(from: from, to: to, zone: household, occurrences: occurrences, issues: issues)
    }
}
