import Foundation

/// A `VTIMEZONE` from the feed: its STANDARD and DAYLIGHT observances, each starting at
/// DTSTART (in the offset it changes *from*) and repeating by RRULE and/or RDATE.
public struct ICSVTimeZone: Sendable, Equatable {
    /// One STANDARD or DAYLIGHT block.
    public struct Observance: Sendable, Equatable {
        public var isDaylight: Bool
        public var start: ICSLocalDateTime
        public var offsetFrom: Int
        public var offsetTo: Int
        public var rule: ICSRecurrenceRule?
        public var dates: [ICSLocalDateTime]

        public init(
            isDaylight: Bool, start: ICSLocalDateTime, offsetFrom: Int, offsetTo: Int,
            rule: ICSRecurrenceRule? = nil, dates: [ICSLocalDateTime] = []
        ) {
            self.isDaylight = isDaylight
            self.start = start
            self.offsetFrom = offsetFrom
            self.offsetTo = offsetTo
            self.rule = rule
            self.dates = dates
        }

        /// The rule's UNTIL on the observance's own clock (the offset it changes from).
        var untilWall: ICSLocalDateTime? {
            switch rule?.until {
            case .date(let day): return day.adding(seconds: 86_399)
            case .dateTime(let time, let utc): return utc ? time.adding(seconds: offsetFrom) : time
            case nil: return nil
            }
        }

        /// The last onset at or before `utc` (as UTC seconds), if any.
        func lastOnset(atOrBefore utc: Int) -> Int? {
            var best: Int?
            func consider(_ wall: ICSLocalDateTime) {
                let onset = wall.wallSeconds - offsetFrom
                if onset <= utc, best.map({ onset > $0 }) ?? true { best = onset }
            }
            consider(start)
            if ICSWorkBudget.current?.spend(dates.count) != false {
                for date in dates { consider(date) }
            }
            if let rule {
                let until = untilWall
                let upper = ICSLocalDateTime(wallSeconds: utc + offsetFrom + 1)
                let expander = ICSRecurrenceExpander(rule: rule, start: start, until: until, maximumInstances: 2_000)
                // Transitions happen a few times a year: two years back is enough, unless the rule ended earlier.
                var expansion = expander.instances(from: upper.adding(days: -800), to: upper)
                if expansion.instances.isEmpty { expansion = expander.instances(from: start, to: upper) }
                if let last = expansion.instances.last { consider(last) }
            }
            return best
        }
    }

    public var tzid: String
    public var observances: [Observance]
    private let cache = ICSTransitionCache()

    public init(tzid: String, observances: [Observance]) {
        self.tzid = tzid
        self.observances = observances
    }

    public static func == (lhs: ICSVTimeZone, rhs: ICSVTimeZone) -> Bool {
        lhs.tzid == rhs.tzid && lhs.observances == rhs.observances
    }

    /// Seconds east of UTC at `instant`: the offset of the observance that began last; before
    /// the first onset, the offset the earliest observance changed from.
    public func offset(at instant: Date) -> Int {
        let utc = Int(instant.timeIntervalSince1970.rounded(.down))
        let year = ICSLocalDateTime(wallSeconds: utc).year
        let entry = cache.year(year) {
            let made = transitions(inUTCYear: year)
            // A year worked out while the budget ran out may lack transitions: not kept.
            return (made, complete: ICSWorkBudget.current?.isExhausted != true)
        }
        // The last change at or before `utc`, by binary search (a feed may list thousands in a year).
        var low = 0
        var high = entry.transitions.count
        while low < high {
            let middle = (low + high) / 2
            if entry.transitions[middle].onset <= utc { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? entry.transitions[low - 1].offset : entry.initialOffset
    }

    /// The offset at the start of UTC year `year` and the changes during it.
    private func transitions(inUTCYear year: Int) -> ICSTransitionCache.Year {
        let first = ICSLocalDateTime(year: year, month: 1, day: 1).wallSeconds
        let last = ICSLocalDateTime(year: year + 1, month: 1, day: 1).wallSeconds
        var found: [(onset: Int, offset: Int, order: Int)] = []
        for (order, observance) in observances.enumerated() {
            func consider(_ wall: ICSLocalDateTime) {
                let onset = wall.wallSeconds - observance.offsetFrom
                if onset >= first && onset < last { found.append((onset, observance.offsetTo, order)) }
            }
            consider(observance.start)
            if ICSWorkBudget.current?.spend(observance.dates.count) != false {
                observance.dates.forEach(consider)
            }
            if let rule = observance.rule {
                let expander = ICSRecurrenceExpander(
                    rule: rule, start: observance.start, until: observance.untilWall, maximumInstances: 1_000)
                let window = expander.instances(
                    from: ICSLocalDateTime(wallSeconds: first - 2 * 86_400),
                    to: ICSLocalDateTime(wallSeconds: last + 2 * 86_400))
                window.instances.forEach(consider)
            }
        }
        found.sort { ($0.onset, $0.order) < ($1.onset, $1.order) }
        return .init(
            initialOffset: offsetScanningHistory(at: first - 1), transitions: found.map { ($0.onset, $0.offset) })
    }

    /// The offset at `utc`, from every observance's whole history (the slow path, once a year).
    private func offsetScanningHistory(at utc: Int) -> Int {
        var best: (onset: Int, offset: Int)?
        for observance in observances {
            if let onset = observance.lastOnset(atOrBefore: utc), best.map({ onset >= $0.onset }) ?? true {
                best = (onset, observance.offsetTo)
            }
        }
        if let best { return best.offset }
        let earliest = observances.min { $0.start < $1.start }
        return earliest?.offsetFrom ?? 0
    }

    /// Reads a `VTIMEZONE` component; nil when it has no TZID or no usable observance.
    public init?(_ component: ICSComponent) {
        // TZID is text (RFC 5545 §3.8.3.1): `Kuala Lumpur\, Singapore` is the zone events name
        // `TZID="Kuala Lumpur, Singapore"` (an Exchange export).
        guard let tzid = component.property("TZID").map({ ICSText.unescape($0.value).trimmingWhitespace }),
            !tzid.isEmpty
        else { return nil }
        var observances: [Observance] = []
        for child in component.components where child.name == "STANDARD" || child.name == "DAYLIGHT" {
            guard let startText = child.property("DTSTART").flatMap({ ICSDateTimeText($0.value) }),
                let offsetTo = child.property("TZOFFSETTO").flatMap({ Self.parseOffset($0.value) })
            else { continue }
            let offsetFrom = child.property("TZOFFSETFROM").flatMap { Self.parseOffset($0.value) } ?? offsetTo
            let rule = child.property("RRULE").flatMap { try? ICSRecurrenceRule(parsing: $0.value) }
            var dates: [ICSLocalDateTime] = []
            for line in child.properties("RDATE") {
                for item in line.value.split(separator: ",") {
                    if let text = ICSDateTimeText(String(item.split(separator: "/").first ?? item)) {
                        dates.append(text.wall)
                    }
                }
            }
            observances.append(
                Observance(
                    isDaylight: child.name == "DAYLIGHT", start: startText.wall, offsetFrom: offsetFrom,
                    offsetTo: offsetTo, rule: rule, dates: dates))
        }
        guard !observances.isEmpty else { return nil }
        self.init(tzid: tzid, observances: observances)
    }

    /// `+0100`, `-0530`, `+013045` → seconds east of UTC.
    public static func parseOffset(_ text: String) -> Int? {
        let text = text.trimmingWhitespace
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = Array(text.dropFirst())
        guard digits.count == 4 || digits.count == 6, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let hours = Int(String(digits[0..<2])), let minutes = Int(String(digits[2..<4]))
        else { return nil }
        let seconds = digits.count == 6 ? Int(String(digits[4..<6])) ?? 0 : 0
        let total = hours * 3600 + minutes * 60 + seconds
        return sign == "-" ? -total : total
    }
}
