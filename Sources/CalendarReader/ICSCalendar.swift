import Foundation
import ModelCore

/// An iCalendar feed read for one household: its events (zones resolved) and the problems met.
///
/// ```swift
/// let calendar = try ICSCalendar(text: feed, household: TimeZone(identifier: "Europe/Amsterdam")!)
/// for day in calendar.expand(from: monday, to: monday.adding(days: 7)).days { … }
/// ```
/// Pure: no I/O, no clock but the deadline of its `ICSWorkBudget`. Floating times are read in
/// the household zone. Reading and expanding are each bounded by `ICSLimits` (bytes, nesting,
/// instances, steps, time); what a limit cuts off is reported as an issue of kind `.limit`.
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
    /// Whether the whole feed was read: false when a limit stopped the reading (see `issues`).
    public let isComplete: Bool

    /// Reads a feed given as text.
    public init(
        text: String, household: TimeZone, limits: ICSLimits = .standard, budget: ICSWorkBudget? = nil
    ) throws(ICSReadError) {
        try self.init(bytes: Array(text.utf8), household: household, limits: limits, budget: budget)
    }

    /// Reads a feed given as bytes (UTF-8; invalid sequences are replaced, never fatal), spending
    /// from `budget` (by default one made from `limits`, starting now).
    public init(
        bytes: [UInt8], household: TimeZone, limits: ICSLimits = .standard, budget: ICSWorkBudget? = nil
    ) throws(ICSReadError) {
        let budget = budget ?? ICSWorkBudget(limits)
        // Feed-defined zones work out their transitions deep inside date conversions: they spend from `current`.
        let read = ICSWorkBudget.$current.withValue(budget) {
            Result { () throws(ICSReadError) -> Read in
                try Self.read(bytes, household: household, limits: limits, budget: budget)
            }
        }
        let parsed = try read.get()
        self.household = household
        self.events = parsed.events
        self.issues = parsed.issues
        self.name = parsed.name
        self.declaredTimeZone = parsed.declaredTimeZone
        self.isComplete = !parsed.issues.contains { $0.kind == .limit }
    }

    private struct Read {
        var events: [ICSEvent]
        var issues: [ICSIssue]
        var name: String?
        var declaredTimeZone: String?
    }

    private static func read(
        _ bytes: [UInt8], household: TimeZone, limits: ICSLimits, budget: ICSWorkBudget
    ) throws(ICSReadError) -> Read {
        let parsed = try ICSParser.parse(bytes, limits: limits, budget: budget)
        var issues = parsed.issues
        var definitions: [ICSVTimeZone] = []
        for calendar in parsed.calendars {
            for component in calendar.components("VTIMEZONE") {
                guard budget.spend(1 + component.components.count) else { break }
                if let definition = ICSVTimeZone(component) {
                    definitions.append(definition)
                } else {
                    issues.append(
                        ICSIssue(line: component.lineNumber, message: "VTIMEZONE without TZID or observances ignored"))
                }
            }
        }
        let declaredTimeZone = parsed.calendars.lazy.compactMap {
            $0.property("X-WR-TIMEZONE")?.value.trimmingWhitespace
        }.first
        let reader = ICSEventReader(
            resolver: ICSTimeZoneResolver(
                household: household, definitions: definitions, declaredTimeZone: declaredTimeZone))
        var events: [ICSEvent] = []
        reading: for calendar in parsed.calendars {
            for component in calendar.components where component.name == "VEVENT" {
                guard budget.spend(1 + component.properties.count) else {
                    issues.append(
                        ICSIssue(
                            line: component.lineNumber,
                            message:
                                "reading stopped at this VEVENT because \(budget.stopDescription); "
                                + "it and the events after it are left out",
                            kind: .limit))
                    break reading
                }
                let (event, found) = reader.read(component)
                issues += found
                if let event { events.append(event) }
            }
        }
        if budget.isExhausted, !issues.contains(where: { $0.kind == .limit }) {
            // A feed-defined zone ran out of budget while an event was read: its times may be off.
            issues.append(
                ICSIssue(
                    line: 1,
                    message:
                        "reading stopped because \(budget.stopDescription); the last event read may have wrong times",
                    kind: .limit))
        }
        return Read(
            events: events, issues: ICSIssue.bounded(issues),
            name: parsed.calendars.lazy.compactMap { $0.property("X-WR-CALNAME").map { ICSText.unescape($0.value) } }
                .first,
            declaredTimeZone: declaredTimeZone)
    }

    /// The occurrences touching the local days `[from, to)` of the household zone. Each series
    /// is expanded only over that window. The work is bounded by `limits` — at most
    /// `maximumSeriesInstances` instances of a series and `maximumInstances` occurrences in
    /// all — and by `budget` (by default one made from `limits`, starting now; another thread
    /// may cancel it). Series are expanded in feed order: when a limit is reached, the series
    /// from there on are left out, and an issue of kind `.limit` says where and why.
    public func expand(
        from: LocalDate, to: LocalDate, limits: ICSLimits = .standard, budget: ICSWorkBudget? = nil
    ) -> ICSExpansion {
        let budget = budget ?? ICSWorkBudget(limits)
        return ICSWorkBudget.$current.withValue(budget) {
            expand(from: from, to: to, limits: limits, spending: budget)
        }
    }

    private func expand(from: LocalDate, to: LocalDate, limits: ICSLimits, spending budget: ICSWorkBudget)
        -> ICSExpansion
    {
        let expander = ICSSeriesExpander(household: household, maximumInstances: limits.maximumSeriesInstances)
        var masters: [String: ICSEvent] = [:]
        var overrides: [String: [ICSEvent]] = [:]
        var order: [String] = []
        for event in events {
            if masters[event.uid] == nil && overrides[event.uid] == nil { order.append(event.uid) }
            if let recurrenceID = event.recurrenceID {
                // Versions of one override: the latest (RFC 5546) replaces the others.
                var list = overrides[event.uid, default: []]
                if let index = list.firstIndex(where: { $0.recurrenceID == recurrenceID }) {
                    if event.supersedes(list[index]) { list[index] = event }
                } else {
                    list.append(event)
                }
                overrides[event.uid] = list
            } else if let current = masters[event.uid] {
                // Two VEVENTs of one UID without RECURRENCE-ID are versions of one component
                // (RFC 5545 §3.8.4.7, §3.8.7.4): the latest replaces the others, its dates,
                // EXDATEs and RDATEs with it.
                if event.supersedes(current) { masters[event.uid] = event }
            } else {
                masters[event.uid] = event
            }
        }
        var occurrences: [ICSOccurrence] = []
        var issues: [ICSIssue] = []
        /// Expands one series; false when a limit stopped the expansion (the issue is added).
        func expand(_ master: ICSEvent?, _ changes: [ICSEvent]) -> Bool {
            let first = master ?? changes[0]
            let room = limits.maximumInstances - occurrences.count
            guard room > 0, budget.spend() else {
                issues.append(stopped(at: first, room: room, budget: budget, limits: limits))
                return false
            }
            let found = expander.occurrences(
                master: master, overrides: changes, from: from, to: to, room: room, budget: budget)
            occurrences += found.occurrences
            issues += found.issues
            if budget.isExhausted || found.filledRoom {
                issues.append(stopped(at: first, room: found.filledRoom ? 0 : room, budget: budget, limits: limits))
                return false
            }
            return true
        }
        series: for uid in order {
            guard expand(masters[uid], overrides[uid] ?? []) else { break series }
        }
        occurrences.sort { ($0.start, $0.uid) < ($1.start, $1.uid) }
        return ICSExpansion(from: from, to: to, zone: household, occurrences: occurrences, issues: issues)
    }

    /// The issue of an expansion that a limit stopped at `event`'s series.
    private func stopped(at event: ICSEvent, room: Int, budget: ICSWorkBudget, limits: ICSLimits) -> ICSIssue {
        let reason =
            room <= 0
            ? "it reached \(limits.maximumInstances) occurrences, the most one feed may show at once"
            : budget.stopDescription
        return ICSIssue(
            line: event.lineNumber, uid: event.uid,
            message: "expansion stopped at this series because \(reason); it and the series after it may be missing",
            kind: .limit)
    }
}
