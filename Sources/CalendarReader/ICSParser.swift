/// Turns feed bytes into a tree of components. Never traps: malformed lines become defects of
/// the component they are in (or issues at the top level), and a missing `END` is closed at
/// the end of the input. Bounded: at most `maximumBytes` of input, components nested at most
/// `maximumDepth` deep (deeper blocks are ignored with an issue), and one step of the budget
/// per line (when it runs out, the rest of the feed is ignored with an issue).
public enum ICSParser {
    /// The default input cap: 5 MB.
    public static let defaultMaximumBytes = ICSLimits.standard.maximumBytes

    /// The `VCALENDAR` components of a feed and the problems found outside any event.
    public struct Result: Sendable {
        public var calendars: [ICSComponent]
        public var issues: [ICSIssue]
    }

    /// Parses `bytes`; throws when they are over `limits.maximumBytes` or not iCalendar at all.
    public static func parse(
        _ bytes: [UInt8], limits: ICSLimits = .standard, budget: ICSWorkBudget? = nil
    ) throws(ICSReadError) -> Result {
        let maximumBytes = limits.maximumBytes
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count, limit: maximumBytes) }
        let lines = ICSUnfolder.unfold(bytes)
        guard let first = lines.first(where: { !$0.text.allSatisfy(\.isWhitespace) }) else {
            throw .notICalendar("the feed is empty")
        }
        let firstText = first.text.trimmingWhitespace
        guard firstText.uppercased() == "BEGIN:VCALENDAR" else {
            let shown = String(firstText.prefix(60))
            let hint =
                firstText.hasPrefix("<")
                ? " (looks like HTML or XML)" : firstText.hasPrefix("{") ? " (looks like JSON)" : ""
            throw .notICalendar("expected BEGIN:VCALENDAR on line \(first.number), found \"\(shown)\"\(hint)")
        }
        var issues: [ICSIssue] = []
        var stack: [ICSComponent] = []
        /// Components closed because a calendar component began inside them (the first
        /// ``reportedUnclosed`` are reported one by one, the rest counted).
        var unclosedCount = 0
        var calendars: [ICSComponent] = []

        func close() {
            guard let done = stack.popLast() else { return }
            if stack.isEmpty {
                if done.name == "VCALENDAR" {
                    calendars.append(done)
                } else {
                    issues.append(ICSIssue(line: done.lineNumber, message: "\(done.name) outside VCALENDAR ignored"))
                }
            } else {
                stack[stack.count - 1].components.append(done)
            }
        }
        func report(_ issue: ICSIssue) {
            if stack.isEmpty || stack[stack.count - 1].name == "VCALENDAR" {
                issues.append(issue)
            } else if stack[stack.count - 1].defect == nil {
                stack[stack.count - 1].defect = issue
            }
        }

        /// Blocks open inside one that is nested too deep: everything until its END is ignored.
        var ignoredDepth = 0
        for line in lines {
            if let budget, !budget.spend() {
                issues.append(
                    ICSIssue(
                        line: line.number,
                        message:
                            "reading stopped here because \(budget.stopDescription); the rest of the feed is ignored",
                        kind: .limit))
                break
            }
            if line.text.allSatisfy(\.isWhitespace) { continue }
            if ignoredDepth > 0 {
                let name = line.text.prefix(6).uppercased()
                if name.hasPrefix("BEGIN:") {
                    ignoredDepth += 1
                } else if name.hasPrefix("END:") {
                    ignoredDepth -= 1
                }
                continue
            }
            guard let content = ICSContentLine(parsing: line.text, lineNumber: line.number) else {
                // Most often a folded line that lost its leading space: calendar apps drop the
                // line and keep the event, and so does the reader.
                issues.append(
                    ICSIssue(
                        line: line.number,
                        message:
                            "malformed content line \"\(line.text.prefix(60))\" ignored (a folded line without its leading space?)"
                    ))
                continue
            }
            switch content.name {
            case "BEGIN":
                let name = content.value.trimmingWhitespace.uppercased()
                guard !name.isEmpty else {
                    report(ICSIssue(line: line.number, message: "BEGIN without a component name"))
                    continue
                }
                guard stack.count < limits.maximumDepth else {
                    issues.append(
                        ICSIssue(
                            line: line.number,
                            message:
                                "BEGIN:\(name.prefix(40)) is nested more than \(limits.maximumDepth) components deep; "
                                + "it is ignored up to its END",
                            kind: .limit))
                    ignoredDepth = 1
                    continue
                }
                // A calendar's own components (an event, a to-do, a zone) never nest in another
                // one: one that starts inside an event or a to-do means that one was never
                // closed (`END:VTOOD`), so it is closed here and the new one is read as the
                // calendar's, not swallowed.
                if Self.calendarLevel.contains(name) {
                    while let top = stack.last?.name, Self.closedByACalendarComponent.contains(top) {
                        let unclosed = stack[stack.count - 1]
                        unclosedCount += 1
                        if unclosedCount <= Self.reportedUnclosed {
                            issues.append(
                                ICSIssue(
                                    line: unclosed.lineNumber,
                                    message:
                                        "BEGIN:\(unclosed.name.prefix(40)) is never closed; it ends where BEGIN:\(name.prefix(40)) starts on line \(line.number)"
                                ))
                        }
                        if stack[stack.count - 1].defect == nil {
                            stack[stack.count - 1].defect = ICSIssue(
                                line: unclosed.lineNumber, message: "BEGIN:\(unclosed.name) is never closed")
                        }
                        close()
                    }
                }
                stack.append(ICSComponent(name: name, lineNumber: line.number))
            case "END":
                let name = content.value.trimmingWhitespace.uppercased()
                guard let open = stack.lastIndex(where: { $0.name == name }) else {
                    report(ICSIssue(line: line.number, message: "END:\(name) without a matching BEGIN"))
                    continue
                }
                // Components left open inside this one are closed here, each with a defect.
                while stack.count - 1 > open {
                    let unclosed = stack[stack.count - 1]
                    if stack[stack.count - 1].defect == nil {
                        stack[stack.count - 1].defect = ICSIssue(
                            line: unclosed.lineNumber, message: "BEGIN:\(unclosed.name) is never closed")
                    }
                    close()
                }
                close()
            default:
                if stack.isEmpty {
                    issues.append(ICSIssue(line: line.number, message: "\(content.name) outside any component ignored"))
                } else {
                    stack[stack.count - 1].properties.append(content)
                }
            }
        }
        while let unclosed = stack.last {
            if stack[stack.count - 1].defect == nil {
                stack[stack.count - 1].defect = ICSIssue(
                    line: unclosed.lineNumber, message: "BEGIN:\(unclosed.name) is never closed (truncated feed?)")
            }
            if stack.count == 1 { issues.append(stack[0].defect!) }
            close()
        }
        if unclosedCount > Self.reportedUnclosed {
            issues.append(
                ICSIssue(
                    line: 1,
                    message:
                        "\(unclosedCount - Self.reportedUnclosed) more components were never closed; each ends where the next begins"
                ))
        }
        return Result(calendars: calendars, issues: issues)
    }

    /// The components that live directly in a VCALENDAR (RFC 5545 §3.6, RFC 7953).
    static let calendarLevel: Set<String> = [
        "VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VAVAILABILITY",
    ]

    /// The components a calendar component cannot begin inside: the calendar's own and their
    /// parts. An unknown (`X-`) component may hold events of its own, so one is not closed.
    static let closedByACalendarComponent: Set<String> = calendarLevel.union([
        "VALARM", "STANDARD", "DAYLIGHT", "AVAILABLE",
    ])

    /// How many unclosed components are reported one by one.
    static let reportedUnclosed = 10
}
