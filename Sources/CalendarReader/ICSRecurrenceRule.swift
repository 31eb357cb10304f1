/// A parsed `RRULE` value (RFC 5545 §3.3.10). Unknown `X-` parts are ignored; another part the
/// grammar does not know (`UNTL=`, a typo) is ignored with a note, as is a `COUNT` that is not a
/// number beside an `UNTIL` (the rule follows `UNTIL`). A missing `FREQ` or a value out of range
/// is an error: the event is then shown once, with an issue.
public struct ICSRecurrenceRule: Sendable, Equatable {
    /// `SECONDLY` … `YEARLY`, ordered from the shortest period to the longest.
    public enum Frequency: Int, Sendable, Comparable, CaseIterable {
        case secondly, minutely, hourly, daily, weekly, monthly, yearly

        public static func < (lhs: Frequency, rhs: Frequency) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The end of a rule: a date (inclusive) or a date-time (UTC when `utc`, otherwise the
    /// event's own wall clock).
    public enum Until: Sendable, Equatable {
        case date(ICSLocalDateTime)
        case dateTime(ICSLocalDateTime, utc: Bool)
    }

    /// `2MO`, `-1SU`, `FR`: an optional ordinal and a weekday (Monday = 0 … Sunday = 6).
    public struct WeekdayNumber: Sendable, Hashable {
        public let ordinal: Int?
        public let weekday: Int

        public init(ordinal: Int? = nil, weekday: Int) {
            self.ordinal = ordinal
            self.weekday = weekday
        }
    }

    /// Why a rule could not be read.
    public struct ParseError: Error, Sendable, Equatable {
        public let message: String
    }

    public var frequency: Frequency
    public var interval = 1
    public var count: Int?
    public var until: Until?
    public var bySecond: [Int] = []
    public var byMinute: [Int] = []
    public var byHour: [Int] = []
    public var byDay: [WeekdayNumber] = []
    public var byMonthDay: [Int] = []
    public var byYearDay: [Int] = []
    public var byWeekNo: [Int] = []
    public var byMonth: [Int] = []
    public var bySetPos: [Int] = []
    /// Monday = 0 (the default) … Sunday = 6.
    public var weekStart = 0
    /// What the parser ignored and why (for the feed's issues): at most ``maximumNotes``, then
    /// one that counts the rest.
    public var notes: [String] = []
    public static let maximumNotes = 5

    public init(frequency: Frequency) {
        self.frequency = frequency
    }

    static let weekdayNames = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    /// Parses `FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261231T230000Z`.
    public init(parsing text: String) throws(ParseError) {
        var frequency: Frequency?
        var rule = ICSRecurrenceRule(frequency: .daily)
        var badCount: String?
        // At most `maximumNotes` notes are kept, the rest counted: a line of a million unknown
        // parts makes one note more, not a million.
        var unlisted = 0
        func note(_ text: String) {
            if rule.notes.count < Self.maximumNotes { rule.notes.append(text) } else { unlisted += 1 }
        }
        // `RRULE:RRULE:FREQ=…` (the property name written twice, a Google export): the value
        // is what follows. Read on a substring, so a value of many such prefixes costs its length.
        var rest = Substring(text.trimmingWhitespace)
        while rest.prefix(6).uppercased() == "RRULE:" { rest = rest.dropFirst(6) }
        let text = String(rest)
        guard !text.isEmpty else { throw ParseError(message: "RRULE is empty") }
        for part in text.split(separator: ";", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2 else {
                note("RRULE part \"\(part.prefix(20))\" has no value; ignored")
                continue
            }
            let key = pieces[0].trimmingWhitespace.uppercased()
            let value = pieces[1].trimmingWhitespace
            func numbers(_ range: ClosedRange<Int>, allowNegative: Bool) throws(ParseError) -> [Int] {
                var result: [Int] = []
                for item in value.split(separator: ",") {
                    guard let number = Int(item.trimmingWhitespace.replacingPlus),
                        range.contains(allowNegative ? abs(number) : number), !(allowNegative && number == 0)
                    else { throw ParseError(message: "\(key) value \"\(item)\" is out of range") }
                    result.append(number)
                }
                return result
            }
            switch key {
            case "FREQ":
                let names = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]
                guard let index = names.firstIndex(of: value.uppercased()) else {
                    throw ParseError(message: "unknown FREQ \"\(value)\"")
                }
                frequency = Frequency(rawValue: index)
            case "INTERVAL":
                guard let interval = Int(value), (1...1_000_000).contains(interval) else {
                    throw ParseError(message: "INTERVAL \"\(value)\" is not a number from 1 to 1000000")
                }
                rule.interval = interval
            case "COUNT":
                guard let count = Int(value), count >= 0 else {
                    badCount = String(value.prefix(20))
                    continue
                }
                rule.count = count
            case "UNTIL":
                guard let raw = ICSDateTimeText(value) else {
                    throw ParseError(message: "UNTIL \"\(value)\" is not a date or date-time")
                }
                rule.until = raw.isDate ? .date(raw.wall) : .dateTime(raw.wall, utc: raw.isUTC)
            case "BYSECOND": rule.bySecond = try numbers(0...60, allowNegative: false)
            case "BYMINUTE": rule.byMinute = try numbers(0...59, allowNegative: false)
            case "BYHOUR": rule.byHour = try numbers(0...23, allowNegative: false)
            case "BYMONTHDAY": rule.byMonthDay = try numbers(1...31, allowNegative: true)
            case "BYYEARDAY": rule.byYearDay = try numbers(1...366, allowNegative: true)
            case "BYWEEKNO": rule.byWeekNo = try numbers(1...53, allowNegative: true)
            case "BYMONTH": rule.byMonth = try numbers(1...12, allowNegative: false)
            case "BYSETPOS": rule.bySetPos = try numbers(1...366, allowNegative: true)
            case "BYDAY":
                for item in value.uppercased().split(separator: ",") {
                    let item = item.trimmingWhitespace
                    guard item.count >= 2, let weekday = Self.weekdayNames.firstIndex(of: String(item.suffix(2))) else {
                        throw ParseError(message: "BYDAY value \"\(item)\" is not a weekday")
                    }
                    let prefix = String(item.dropLast(2))
                    if prefix.isEmpty {
                        rule.byDay.append(WeekdayNumber(weekday: weekday))
                    } else {
                        guard let ordinal = Int(prefix.replacingPlus), (1...53).contains(abs(ordinal)) else {
                            throw ParseError(message: "BYDAY value \"\(item)\" has a bad ordinal")
                        }
                        rule.byDay.append(WeekdayNumber(ordinal: ordinal, weekday: weekday))
                    }
                }
            case "WKST":
                guard let weekday = Self.weekdayNames.firstIndex(of: value.uppercased()) else {
                    throw ParseError(message: "WKST \"\(value)\" is not a weekday")
                }
                rule.weekStart = weekday
            default:
                // X- parts are extensions; anything else is a part RFC 5545 does not have.
                if !key.hasPrefix("X-") {
                    note(
                        "RRULE part \"\(key.prefix(20))\" is not one RFC 5545 knows; ignored, so the series may not end or repeat as meant"
                    )
                }
            }
        }
        if let badCount {
            guard rule.until != nil else { throw ParseError(message: "COUNT \"\(badCount)\" is not a number") }
            note("RRULE COUNT \"\(badCount)\" is not a number; the series follows its UNTIL")
        }
        if unlisted > 0 { rule.notes.append("\(unlisted) more RRULE parts ignored") }
        guard let frequency else { throw ParseError(message: "RRULE \"\(text.prefix(60))\" has no FREQ") }
        rule.frequency = frequency
        self = rule
    }
}

extension String {
    /// `+2` → `2` (Int's parser refuses a leading plus in some toolchains' strictness).
    fileprivate var replacingPlus: String { hasPrefix("+") ? String(dropFirst()) : self }
}
