import Foundation
import ModelCore

/// Expands one event and its overrides (same UID, with RECURRENCE-ID) over a window:
/// RRULE instances plus RDATEs, minus EXDATEs, with overridden instances replaced by their
/// override, later instances moved by a `RANGE=THISANDFUTURE` override, and cancelled ones dropped.
/// Bounded: at most `maximumInstances` instances of the rule, at most `room` occurrences, one
/// step of the budget per override, EXDATE, RDATE and instance (and the rule's own steps).
public struct ICSSeriesExpander: Sendable {
    public let household: TimeZone
    public let maximumInstances: Int

    public init(household: TimeZone, maximumInstances: Int = ICSRecurrenceExpander.defaultMaximumInstances) {
        self.household = household
        self.maximumInstances = maximumInstances
    }

    /// How long an instance lasts: whole days for an all-day event; otherwise wall-clock
    /// seconds (DTEND on the same clock, days of a DURATION) and exact seconds.
    struct Span: Equatable {
        var days = 0
        var wallSeconds = 0
        var exactSeconds = 0
    }

    /// An identity of an instance in the series, to match EXDATE and RECURRENCE-ID.
    enum Key: Hashable {
        case day(LocalDate)
        case instant(Date)
    }

    /// What one series gave.
    public struct Series: Sendable {
        public var occurrences: [ICSOccurrence] = []
        /// Instance caps that were hit.
        public var issues: [ICSIssue] = []
        /// Whether it stopped because `room` occurrences were made (more may have followed).
        public var filledRoom = false
    }

    /// The occurrences of `master` (nil for overrides without a master) and `overrides` touching
    /// `[from, to)`: at most `room`, spending from `budget` (it stops early when that runs out).
    public func occurrences(
        master: ICSEvent?, overrides: [ICSEvent], from: LocalDate, to: LocalDate, room: Int = .max,
        budget: ICSWorkBudget? = nil
    ) -> Series {
        let budget = budget ?? ICSWorkBudget()
        var series = Series()
        if let master, master.isCancelled { return series }
        var overrides = overrides
        if let master, overrides.contains(where: { $0.sequence < master.sequence }) {
            overrides = overrides.filter { stillApplies($0, to: master, budget: budget) }
        }
        series.occurrences = standalone(overrides, from: from, to: to, room: room, budget: budget)
        if series.occurrences.count >= room {
            series.filledRoom = true
            return series
        }
        guard let master, !budget.isExhausted else { return series }
        expand(master, overrides: overrides, from: from, to: to, room: room, budget: budget, into: &series)
        return series
    }

    /// The overrides that are not cancelled, where they are.
    private func standalone(
        _ overrides: [ICSEvent], from: LocalDate, to: LocalDate, room: Int, budget: ICSWorkBudget
    ) -> [ICSOccurrence] {
        var result: [ICSOccurrence] = []
        let instants = from.start(in: household)..<to.start(in: household)
        for event in overrides where !event.isCancelled {
            guard result.count < room, budget.spend() else { break }
            let clock = clock(of: event)
            let occurrence = make(
                event: event, wall: event.start.wall(on: clock), clock: clock, span: span(of: event, clock: clock),
                recurrenceID: event.recurrenceID.map { $0.instant(household: household) })
            if occurrence.overlaps(from: from, to: to, instants: instants) { result.append(occurrence) }
        }
        return result
    }

    /// The instances of `master`'s rule and RDATEs, with `overrides` applied, added to `series`.
    private func expand(
        _ master: ICSEvent, overrides: [ICSEvent], from: LocalDate, to: LocalDate, room: Int, budget: ICSWorkBudget,
        into series: inout Series
    ) {
        let instants = from.start(in: household)..<to.start(in: household)
        let clock = clock(of: master)
        let span = span(of: master, clock: clock)
        let allDay = master.start.isDate
        func key(_ time: ICSEventTime) -> Key { self.key(time, allDay: allDay) }
        func key(wall: ICSLocalDateTime) -> Key {
            allDay ? .day(wall.date) : .instant(clock.instant(of: wall))
        }
        var exact: [Key: ICSEvent] = [:]
        var future: [(instant: Date, event: ICSEvent)] = []
        for event in overrides {
            guard budget.spend() else { return }
            guard let recurrenceID = event.recurrenceID else { continue }
            exact[key(recurrenceID)] = event
            if event.thisAndFuture { future.append((recurrenceID.instant(household: household), event)) }
        }
        future.sort { $0.instant < $1.instant }
        var excludedKeys = Set<Key>()
        var excludedDays = Set<LocalDate>()
        for exception in master.exceptionDates {
            guard budget.spend() else { return }
            excludedKeys.insert(key(exception))
            if case .date(let day) = exception { excludedDays.insert(day) }
        }

        // The window on the event's own clock, widened by the event's length and a day each side.
        let lower: ICSLocalDateTime
        let upper: ICSLocalDateTime
        let reach = span.days + (span.wallSeconds + max(0, span.exactSeconds)) / 86_400 + 2
        if allDay {
            lower = ICSLocalDateTime(from).adding(days: -reach)
            upper = ICSLocalDateTime(to).adding(days: 1)
        } else {
            lower = clock.wall(at: instants.lowerBound).adding(days: -reach)
            upper = clock.wall(at: instants.upperBound).adding(days: 2)
        }
        let startWall = master.start.wall(on: clock)
        var instances: [(wall: ICSLocalDateTime, end: ICSEventTime?, duration: ICSDuration?)] = []
        var seen = Set<ICSLocalDateTime>()
        if master.rules.isEmpty {
            if startWall >= lower && startWall < upper { instances = [(startWall, nil, nil)] }
            seen = Set(instances.map(\.wall))
        }
        // Several RRULEs: the union of their instances (RFC 5545 §3.8.5.3), each instance once.
        for rule in master.rules {
            // The series' own cap, not the room left: instances just outside the window count
            // towards it but are no occurrences (the loop below stops when the room is full).
            let expander = self.expander(rule, start: startWall, clock: clock, allDay: allDay)
            let expansion = expander.instances(from: lower, to: upper, budget: budget)
            if budget.isExhausted { return }
            if expansion.truncated {
                series.issues.append(
                    ICSIssue(
                        line: master.lineNumber, uid: master.uid,
                        message:
                            "recurrence expansion stopped at the cap of \(maximumInstances) instances "
                            + "(or \(expander.maximumSteps) candidate dates) of one series",
                        kind: .limit))
            }
            for wall in expansion.instances where seen.insert(wall).inserted {
                instances.append((wall, nil, nil))
            }
        }
        for date in master.recurrenceDates {
            guard budget.spend() else { return }
            let wall = date.start.wall(on: clock)
            guard wall >= lower && wall < upper, seen.insert(wall).inserted else { continue }
            instances.append((wall, date.end, date.duration))
        }
        instances.sort { $0.wall < $1.wall }

        // The window on the event's clock, a day wider each side than any offset: an instance of
        // the series' own length ending before it or starting after it cannot touch the window,
        // so it is passed over before the (costly) conversions to instants.
        let length = span.days * 86_400 + span.wallSeconds + max(0, span.exactSeconds)
        let windowStart = allDay ? ICSLocalDateTime(from) : clock.wall(at: instants.lowerBound)
        let windowEnd = allDay ? ICSLocalDateTime(to) : clock.wall(at: instants.upperBound)
        for instance in instances {
            guard series.occurrences.count < room else {
                series.filledRoom = true
                return
            }
            guard budget.spend() else { return }
            if future.isEmpty, instance.end == nil, instance.duration == nil,
                instance.wall.adding(seconds: length + 86_400) < windowStart
                    || instance.wall > windowEnd.adding(days: 1)
            {
                continue
            }
            if !exact.isEmpty || !excludedKeys.isEmpty {
                let instanceKey = key(wall: instance.wall)
                if exact[instanceKey] != nil || excludedKeys.contains(instanceKey) { continue }
            }
            if !allDay && excludedDays.contains(instance.wall.date) { continue }
            var event = master
            var wall = instance.wall
            var instanceSpan = span
            if let date = instance.end.map({ ICSRecurrenceDate(start: master.start, end: $0) }) {
                instanceSpan = self.span(
                    start: .dateTime(instance.wall, clock), end: date.end, duration: nil, clock: clock)
            } else if let duration = instance.duration {
                instanceSpan = self.span(start: master.start, end: nil, duration: duration, clock: clock)
            }
            let instant = allDay ? instance.wall.date.start(in: household) : clock.instant(of: instance.wall)
            if let moved = Self.last(before: instant, in: future), let movedID = moved.recurrenceID {
                if moved.isCancelled { continue }
                let shift = moved.start.wall(on: clock).wallSeconds - movedID.wall(on: clock).wallSeconds
                wall = wall.adding(seconds: shift)
                event.summary = moved.summary
                event.location = moved.location
                event.description = moved.description
                instanceSpan = self.span(of: moved, clock: clock)
            }
            let occurrence = make(
                event: event, wall: wall, clock: clock, span: instanceSpan,
                recurrenceID: master.isRecurring ? instant : nil)
            if occurrence.overlaps(from: from, to: to, instants: instants) { series.occurrences.append(occurrence) }
        }
    }

    /// The expander of one of `rule`'s series starting at `start` on `clock`.
    func expander(_ rule: ICSRecurrenceRule, start: ICSLocalDateTime, clock: ICSZone, allDay: Bool)
        -> ICSRecurrenceExpander
    {
        let until: ICSLocalDateTime?
        switch rule.until {
        case .date(let day): until = day.adding(seconds: 86_399)
        case .dateTime(let time, utc: true): until = clock.wall(at: time.utcDate)
        case .dateTime(let time, utc: false): until = time
        case nil: until = nil
        }
        var effective = rule
        if allDay && rule.frequency < .daily { effective.frequency = .daily }
        return ICSRecurrenceExpander(rule: effective, start: start, until: until, maximumInstances: maximumInstances)
    }

    /// Which instance of a series `time` (a RECURRENCE-ID or an EXDATE) names. In an all-day
    /// series it names a calendar date as written — `20200416`, or a date-time such as
    /// `TZID=…:20200416T000000` or `…T000000Z` that some producers write — in every zone, not
    /// the date that instant falls on in the household's zone (west of UTC the day before).
    func key(_ time: ICSEventTime, allDay: Bool) -> Key {
        if allDay {
            switch time {
            case .date(let day): return .day(day)
            case .dateTime(let wall, _): return .day(wall.date)
            }
        }
        return .instant(time.instant(household: household))
    }

    /// Whether `override` moves an instance `master` still has (its RRULEs or RDATEs make one
    /// where the RECURRENCE-ID says): an override older than the series (a lower SEQUENCE) of an
    /// instance the series no longer has — a later version shortened or moved it — is left
    /// out, not shown as a lone event.
    func stillApplies(_ override: ICSEvent, to master: ICSEvent, budget: ICSWorkBudget) -> Bool {
        guard let recurrenceID = override.recurrenceID, override.sequence < master.sequence else { return true }
        let allDay = master.start.isDate
        let clock = clock(of: master)
        let wanted = key(recurrenceID, allDay: allDay)
        func matches(_ wall: ICSLocalDateTime) -> Bool {
            (allDay ? Key.day(wall.date) : Key.instant(clock.instant(of: wall))) == wanted
        }
        let startWall = master.start.wall(on: clock)
        if matches(startWall) { return true }
        for date in master.recurrenceDates where matches(date.start.wall(on: clock)) { return true }
        let around = allDay ? ICSLocalDateTime(recurrenceID.wall(on: clock).date) : recurrenceID.wall(on: clock)
        for rule in master.rules {
            let expander = expander(rule, start: startWall, clock: clock, allDay: allDay)
            let found = expander.instances(from: around.adding(days: -1), to: around.adding(days: 2), budget: budget)
            if found.instances.contains(where: matches) { return true }
        }
        return false
    }

    /// The override of `future` (sorted by instant) with the latest instant before `instant`:
    /// a binary search, since a feed may hold thousands of them.
    static func last(before instant: Date, in future: [(instant: Date, event: ICSEvent)]) -> ICSEvent? {
        var low = 0
        var high = future.count
        while low < high {
            let middle = (low + high) / 2
            if future[middle].instant < instant { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? future[low - 1].event : nil
    }

    /// The clock an event's instances are computed on.
    func clock(of event: ICSEvent) -> ICSZone {
        if case .dateTime(_, let zone) = event.start { return zone }
        return .system(household)
    }

    func span(of event: ICSEvent, clock: ICSZone) -> Span {
        span(start: event.start, end: event.end, duration: event.duration, clock: clock)
    }

    func span(start: ICSEventTime, end: ICSEventTime?, duration: ICSDuration?, clock: ICSZone) -> Span {
        if case .date(let first) = start {
            if case .date(let last)? = end { return Span(days: max(1, first.days(to: last))) }
            if let end {
                let last = end.wall(on: .system(household))
                let days = first.days(to: last.date) + (last.secondOfDay > 0 ? 1 : 0)
                return Span(days: max(1, days))
            }
            if let duration { return Span(days: max(1, duration.days + (duration.seconds + 86_399) / 86_400)) }
            return Span(days: 1)
        }
        if let end {
            switch end {
            case .dateTime(let wall, let zone) where zone == clock:
                return Span(wallSeconds: max(0, wall.wallSeconds - start.wall(on: clock).wallSeconds))
            case .date:
                return Span(wallSeconds: max(0, end.wall(on: clock).wallSeconds - start.wall(on: clock).wallSeconds))
            default:
                let seconds = end.instant(household: household).timeIntervalSince(start.instant(household: household))
                return Span(exactSeconds: max(0, Int(seconds)))
            }
        }
        if let duration { return Span(wallSeconds: duration.days * 86_400, exactSeconds: duration.seconds) }
        return Span()
    }

    func make(event: ICSEvent, wall: ICSLocalDateTime, clock: ICSZone, span: Span, recurrenceID: Date?)
        -> ICSOccurrence
    {
        if event.start.isDate {
            let first = wall.date
            let last = first.adding(days: span.days)
            return ICSOccurrence(
                uid: event.uid, summary: event.summary, location: event.location, description: event.description,
                start: first.start(in: household), end: last.start(in: household), isAllDay: true,
                startDate: first, endDate: last, recurrenceID: recurrenceID)
        }
        let start = clock.instant(of: wall)
        var end = span.wallSeconds == 0 ? start : clock.instant(of: wall.adding(seconds: span.wallSeconds))
        end = end.addingTimeInterval(TimeInterval(span.exactSeconds))
        return ICSOccurrence(
            uid: event.uid, summary: event.summary, location: event.location, description: event.description,
            start: start, end: max(start, end), recurrenceID: recurrenceID)
    }
}
