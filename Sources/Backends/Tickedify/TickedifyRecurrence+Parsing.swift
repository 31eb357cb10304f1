import Model

extension TickedifyRecurrence {
    /// The pattern a `herhalingType` string names, read in the order `calculateNextRecurringDate`
    /// tries them (app.js 7477–7774): the fixed names first, then the prefixed forms.
    ///
    /// Stricter than the web app where it would compute only by accident: numbers must be plain
    /// decimal digits (JS `parseInt` reads `"3x"` as 3 and `"1,3"` as 1), intervals at least 1 (the
    /// popup's minimum; the web app would give `monthly-day-15-0` a date in the date's own month),
    /// and `event-` directions `voor` or `na` (the web app reads anything else as "after").
    public static func parse(_ text: String) throws(Refusal) -> Pattern {
        if text.isEmpty { throw .empty }
        if let named = named[text] { return named }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        switch parts[0] {
        case "weekly": return try weekly(text, parts)
        case "daily": return try daily(text, parts)
        case "monthly" where parts.count > 1 && parts[1] == "day": return try monthlyDay(text, parts)
        case "monthly" where parts.count > 1 && parts[1] == "weekday": return try monthlyWeekday(text, parts)
        case "yearly" where parts.count > 1 && parts[1] == "special": return try yearlySpecial(text, parts)
        case "yearly": return try yearly(text, parts)
        case "event": return try event(text, parts)
        default: throw .unknownPattern(text)
        }
    }

    private static let dutchWeekdays: [(String, Weekday)] = [
        ("maandag", .monday), ("dinsdag", .tuesday), ("woensdag", .wednesday), ("donderdag", .thursday),
        ("vrijdag", .friday), ("zaterdag", .saturday), ("zondag", .sunday),
    ]

    /// The names `calculateNextRecurringDate` switches on (app.js 7478–7591).
    private static let named: [String: Pattern] = {
        var named: [String: Pattern] = [
            "dagelijks": .addDays(1), "werkdagen": .workdays, "wekelijks": .addDays(7),
            "maandelijks": .addMonths(1), "jaarlijks": .addYears(1), "om-de-dag": .addDays(2),
            "2-weken": .addDays(14), "3-weken": .addDays(21), "2-maanden": .addMonths(2),
            "3-maanden": .addMonths(3), "6-maanden": .addMonths(6),
            "eerste-dag-maand": .dayOfNextMonth(.first), "laatste-dag-maand": .dayOfNextMonth(.last),
            "eerste-werkdag-maand": .workdayOfNextMonth(.first), "laatste-werkdag-maand": .workdayOfNextMonth(.last),
            "eerste-dag-jaar": .dayOfNextYear(.first), "laatste-dag-jaar": .dayOfNextYear(.last),
            "eerste-werkdag-jaar": .workdayOfNextYear(.first), "laatste-werkdag-jaar": .workdayOfNextYear(.last),
        ]
        for (name, weekday) in dutchWeekdays {
            named[name] = .nextWeekday(weekday)
            named["eerste-\(name)-maand"] = .firstWeekdayOfNextMonth(weekday)
            named["laatste-\(name)-maand"] = .lastWeekdayOfNextMonth(weekday)
        }
        return named
    }()

    /// `weekly-<interval>-<day>`, day 0–7 (0 and 7 Sunday), app.js 7595–7611.
    private static func weekly(_ text: String, _ parts: [String]) throws(Refusal) -> Pattern {
        guard parts.count == 3 else { throw malformed(text, "expected weekly-<interval>-<weekday>") }
        let interval = try interval(text, parts[1])
        if parts[2].isEmpty { throw malformed(text, "no weekday is chosen") }
        if parts[2].contains(",") {
            throw malformed(
                text,
                "it lists several weekdays (\(parts[2])); the web app would use only the first, so daygate refuses")
        }
        guard let day = number(parts[2]), day <= 7 else {
            throw malformed(text, "the weekday \"\(parts[2])\" is not a number from 0 (Sunday) to 7 (Sunday)")
        }
        return .weekly(interval: interval, weekday: Weekday(rawValue: day % 7)!)
    }

    /// `daily-<interval>`, app.js 7614–7624.
    private static func daily(_ text: String, _ parts: [String]) throws(Refusal) -> Pattern {
        guard parts.count == 2 else { throw malformed(text, "expected daily-<interval>") }
        return .everyDays(try interval(text, parts[1]))
    }

    /// `monthly-day-<day>-<interval>`, app.js 7627–7636.
    private static func monthlyDay(_ text: String, _ parts: [String]) throws(Refusal) -> Pattern {
        guard parts.count == 4 else { throw malformed(text, "expected monthly-day-<day>-<interval>") }
        guard let day = number(parts[2]), (1...31).contains(day) else {
            throw malformed(text, "the day of the month \"\(parts[2])\" is not a number from 1 to 31")
        }
        return .monthlyDay(day: day, interval: try interval(text, parts[3]))
    }

    /// `yearly-<day>-<month>-<interval>`, app.js 7639–7650.
    private static func yearly(_ text: String, _ parts: [String]) throws(Refusal) -> Pattern {
        guard parts.count == 4 else { throw malformed(text, "expected yearly-<day>-<month>-<interval>") }
        guard let day = number(parts[1]), (1...31).contains(day) else {
            throw malformed(text, "the day \"\(parts[1])\" is not a number from 1 to 31")
        }
        guard let month = number(parts[2]), (1...12).contains(month) else {
            throw malformed(text, "the month \"\(parts[2])\" is not a number from 1 to 12")
        }
        return .yearlyDate(day: day, month: month, interval: try interval(text, parts[3]))
    }

    /// `monthly-weekday-<position>-<day>-<interval>`, day 1–7 (7 Sunday) or `workday`, app.js 7653–7730.
    private static func monthlyWeekday(_ text: String, _ parts: [String]) throws(Refusal) -> Pattern {
        guard parts.count == 5 else { throw malformed(text, "expected monthly-weekday-<position>-<day>-<interval>") }
        guard let position = Position(rawValue: parts[2]) else {
            throw malformed(text, "the position \"\(parts[2])\" is not first, second, third, fourth or last")
        }
        let target: MonthlyTarget
        if parts[3] == "workday" {
            target = .workday
        } else if parts[3] == "0" {
            // The popup offers Sunday as 0, but the web app accepts only 1–7 here and creates nothing.
            throw malformed(
                text,
                "Sunday is written as 0, which the web app does not accept here (only 1–7), so it creates no next task")
        } else if let day = number(parts[3]), (1...7).contains(day) {
            target = .weekday(Weekday(rawValue: day % 7)!)
        } else {
            throw malformed(
                text, "the weekday \"\(parts[3])\" is not a number from 1 (Monday) to 7 (Sunday) or workday")
        }
        return .monthlyWeekday(position: position, target: target, interval: try interval(text, parts[4]))
    }

    /// `yearly-special-<first-workday|last-workday>-<interval>`, app.js 7733–7764.
    private static func yearlySpecial(_ text: String, _ parts: [String]) throws(Refusal) -> Pattern {
        guard parts.count == 5, parts[3] == "workday", parts[2] == "first" || parts[2] == "last" else {
            // The web app gives an unknown kind the 1st of the date's month, `interval` years on.
            throw malformed(
                text, "expected yearly-special-first-workday-<interval> or yearly-special-last-workday-<interval>")
        }
        return .yearlyWorkday(parts[2] == "first" ? .first : .last, interval: try interval(text, parts[4]))
    }

    /// `event-<days>-<voor|na>-<name>`, app.js 11048–11067; the name may contain dashes or be empty.
    private static func event(_ text: String, _ parts: [String]) throws(Refusal) -> Pattern {
        guard parts.count >= 3 else { throw malformed(text, "expected event-<days>-<voor|na>-<name>") }
        guard let days = number(parts[1]) else {
            throw malformed(text, "the number of days \"\(parts[1])\" is not a whole number")
        }
        guard let direction = Direction(rawValue: parts[2]) else {
            throw malformed(text, "the direction \"\(parts[2])\" is not voor (before) or na (after)")
        }
        return .event(days: days, direction: direction, name: parts.dropFirst(3).joined(separator: "-"))
    }

    /// A plain decimal number of at most 9 digits (no sign, space or trailing text).
    static func number(_ text: String) -> Int? {
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    private static func interval(_ text: String, _ part: String) throws(Refusal) -> Int {
        guard let value = number(part), value >= 1 else {
            throw malformed(text, "the interval \"\(part)\" is not a whole number of at least 1")
        }
        return value
    }

    private static func malformed(_ text: String, _ reason: String) -> Refusal {
        .malformed(pattern: text, reason: reason)
    }
}
