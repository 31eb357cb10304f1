import ModelCore

/// Reads a VEVENT component into an `ICSEvent`. A problem that makes the event meaningless
/// (no DTSTART, a date that is not a date) skips the event with an issue naming the line and
/// the UID. What calendar apps still show is kept with a note: a guess (an unknown TZID), an
/// RRULE that cannot be read (the event is shown once), a DTEND before its DTSTART (the two
/// swapped).
public struct ICSEventReader: Sendable {
    public let resolver: ICSTimeZoneResolver

    public init(resolver: ICSTimeZoneResolver) {
        self.resolver = resolver
    }

    /// The event, or the issue that made it unusable; `notes` are problems that did not.
    public func read(_ component: ICSComponent) -> (event: ICSEvent?, issues: [ICSIssue]) {
        let uid = component.property("UID").map { ICSText.unescape($0.value).trimmingWhitespace }
        var notes: [ICSIssue] = []
        func fail(_ line: Int, _ message: String) -> (event: ICSEvent?, issues: [ICSIssue]) {
            (nil, notes + [ICSIssue(line: line, uid: uid, message: "event skipped: " + message)])
        }
        if let defect = component.defect { return fail(defect.line, defect.message) }
        guard let startLine = component.property("DTSTART") else {
            return fail(component.lineNumber, "VEVENT has no DTSTART")
        }
        func times(_ line: ICSContentLine) -> [ICSEventTime]? {
            let isPeriod = line.parameter("VALUE")?.uppercased() == "PERIOD"
            var result: [ICSEventTime] = []
            for item in line.value.split(separator: ",") {
                let text = isPeriod ? String(item.split(separator: "/").first ?? item) : String(item)
                guard let time = time(text, line) else { return nil }
                result.append(time)
            }
            return result.isEmpty ? nil : result
        }
        func time(_ text: String, _ line: ICSContentLine) -> ICSEventTime? {
            guard let raw = ICSDateTimeText(text) else { return nil }
            if raw.isDate { return .date(raw.wall.date) }
            if raw.isUTC { return .dateTime(raw.wall, .utc) }
            guard let tzid = line.parameter("TZID") else { return .dateTime(raw.wall, .system(resolver.floating)) }
            let (zone, note) = resolver.zone(for: tzid)
            if let note, !notes.contains(where: { $0.message == note }) {
                notes.append(ICSIssue(line: line.lineNumber, uid: uid, message: note))
            }
            return .dateTime(raw.wall, zone)
        }
        guard let start = time(startLine.value, startLine) else {
            return fail(startLine.lineNumber, "DTSTART \"\(startLine.value.prefix(40))\" is not a date or date-time")
        }
        var event = ICSEvent(
            uid: uid.flatMap { $0.isEmpty ? nil : $0 } ?? "line-\(component.lineNumber)", start: start,
            lineNumber: component.lineNumber)
        if uid == nil || uid?.isEmpty == true {
            notes.append(ICSIssue(line: component.lineNumber, message: "VEVENT without UID, called \(event.uid)"))
        }
        event.summary = component.property("SUMMARY").map { ICSText.unescape($0.value) }
        event.location = component.property("LOCATION").map { ICSText.unescape($0.value) }
        event.description = component.property("DESCRIPTION").map { ICSText.unescape($0.value) }
        event.status = component.property("STATUS").map { $0.value.trimmingWhitespace.uppercased() }
        event.sequence = component.property("SEQUENCE").flatMap { Int($0.value.trimmingWhitespace) } ?? 0
        if let stamp = component.property("DTSTAMP").flatMap({ ICSDateTimeText($0.value) }), stamp.isUTC {
            event.stamp = stamp.wall
        }
        if let line = component.property("DTEND") {
            guard let end = time(line.value, line) else {
                return fail(line.lineNumber, "DTEND \"\(line.value.prefix(40))\" is not a date or date-time")
            }
            event.end = end
        } else if let line = component.property("DURATION") {
            guard let duration = ICSDuration(line.value) else {
                return fail(line.lineNumber, "DURATION \"\(line.value.prefix(40))\" is not a duration")
            }
            guard !duration.isNegative else { return fail(line.lineNumber, "DURATION is negative") }
            event.duration = duration
        }
        if let end = event.end {
            let household = resolver.household
            if end.instant(household: household) < start.instant(household: household) {
                // Calendar apps show such an event (Google, Apple, python's recurring-ical-events
                // alike) with the two swapped.
                event.start = end
                event.end = start
                notes.append(
                    ICSIssue(
                        line: component.property("DTEND")?.lineNumber ?? component.lineNumber, uid: uid,
                        message: "DTEND is before DTSTART; shown with the two swapped"))
            }
        }
        for line in component.properties("RRULE") {
            do {
                let rule = try ICSRecurrenceRule(parsing: line.value)
                event.rules.append(rule)
                for note in rule.notes { notes.append(ICSIssue(line: line.lineNumber, uid: uid, message: note)) }
            } catch {
                notes.append(
                    ICSIssue(
                        line: line.lineNumber, uid: uid,
                        message: "RRULE: \(error.message); the rule is ignored (the event is shown once)"))
            }
        }
        for line in component.properties("EXDATE") {
            guard let values = times(line) else {
                return fail(line.lineNumber, "EXDATE \"\(line.value.prefix(40))\" is not a list of dates")
            }
            event.exceptionDates += values
        }
        for line in component.properties("RDATE") {
            if line.parameter("VALUE")?.uppercased() == "PERIOD" {
                for item in line.value.split(separator: ",") {
                    let halves = item.split(separator: "/", maxSplits: 1).map(String.init)
                    guard halves.count == 2, let begin = time(halves[0], line) else {
                        return fail(line.lineNumber, "RDATE period \"\(item.prefix(40))\" is malformed")
                    }
                    if let duration = ICSDuration(halves[1]), !duration.isNegative {
                        event.recurrenceDates.append(ICSRecurrenceDate(start: begin, duration: duration))
                    } else if let end = time(halves[1], line) {
                        event.recurrenceDates.append(ICSRecurrenceDate(start: begin, end: end))
                    } else {
                        return fail(line.lineNumber, "RDATE period \"\(item.prefix(40))\" is malformed")
                    }
                }
            } else {
                guard let values = times(line) else {
                    return fail(line.lineNumber, "RDATE \"\(line.value.prefix(40))\" is not a list of dates")
                }
                event.recurrenceDates += values.map { ICSRecurrenceDate(start: $0) }
            }
        }
        if let line = component.property("RECURRENCE-ID") {
            guard let recurrenceID = time(line.value, line) else {
                return fail(line.lineNumber, "RECURRENCE-ID \"\(line.value.prefix(40))\" is not a date or date-time")
            }
            event.recurrenceID = recurrenceID
            event.thisAndFuture = line.parameter("RANGE")?.uppercased() == "THISANDFUTURE"
        }
        return (event, notes)
    }
}
