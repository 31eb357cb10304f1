/// Turns feed bytes into a tree of components. Never traps: malformed lines become defects of
/// the component they are in (or issues at the top level), and a missing `END` is closed at
/// the end of the input.
public enum ICSParser {
    /// The default input cap: 5 MB.
    public static let defaultMaximumBytes = 5_000_000

    /// The `VCALENDAR` components of a feed and the problems found outside any event.
    public struct Result: Sendable {
        public var calendars: [ICSComponent]
        public var issues: [ICSIssue]
    }

    /// Parses `bytes`; throws when they are over `maximumBytes` or not iCalendar at all.
    public static func parse(_ bytes: [UInt8], maximumBytes: Int = defaultMaximumBytes) throws(ICSReadError) -> Result {
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

        for line in lines {
            if line.text.allSatisfy(\.isWhitespace) { continue }
            guard let content = ICSContentLine(parsing: line.text, lineNumber: line.number) else {
                report(ICSIssue(line: line.number, message: "malformed content line \"\(line.text.prefix(60))\""))
                continue
            }
            switch content.name {
            case "BEGIN":
                let name = content.value.trimmingWhitespace.uppercased()
                guard !name.isEmpty else {
                    report(ICSIssue(line: line.number, message: "BEGIN without a component name"))
                    continue
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
        return Result(calendars: calendars, issues: issues)
    }
}
