import Model

extension TickedifyRecurrence {
    /// The next date for a parsed pattern; `text` is the pattern string, for refusals.
    ///
    /// Each rule follows the web app's steps on a JS `Date`, one `js(_:_:_:)` per setter call, so its
    /// overflow is kept: `setMonth` and `setFullYear` keep the day of the month and roll a day the
    /// month lacks into the next month (31 January + 1 month = 3 March, or 2 March in a leap year;
    /// 29 February + 1 year = 1 March), and `setDate(0)` is the last day of the previous month.
    /// Where app.js first moves to day 1 ("FIX v0.21.36") there is no overflow; `maandelijks`,
    /// `2/3/6-maanden`, `jaarlijks` and `eerste-<weekday>-maand` still overflow in the web app.
    public static func nextDate(
        of pattern: Pattern, text: String, from date: LocalDate, today: LocalDate, eventDate: LocalDate? = nil
    ) throws(Refusal) -> LocalDate {
        let next: LocalDate
        if case .event(let days, let direction, _) = pattern {
            guard let eventDate else { throw .needsEventDate(pattern: text) }
            guard days <= maximumSpan else { throw .outOfRange(pattern: text) }
            next = eventDate.adding(days: direction == .before ? -days : days)
        } else {
            if eventDate != nil { throw .eventDateNotApplicable(pattern: text) }
            guard (pattern.interval ?? 1) <= maximumSpan else { throw .outOfRange(pattern: text) }
            next = catchUp(pattern, step(pattern, date), today: today)
        }
        guard (1...9999).contains(next.year) else { throw .outOfRange(pattern: text) }
        return next
    }

    /// Larger steps leave the years 0001–9999 from any date; refusing them early keeps the arithmetic small.
    private static let maximumSpan = 10_000 * 366

    /// One step of the rule from `date` (app.js 7477–7765).
    static func step(_ pattern: Pattern, _ date: LocalDate) -> LocalDate {
        let (year, month, day) = (date.year, date.month - 1, date.day)  // month as JS counts it: 0–11
        switch pattern {
        case .addDays(let days), .everyDays(let days):
            return date.adding(days: days)
        case .workdays:
            return firstWorkday(onOrAfter: date.adding(days: 1))
        case .addMonths(let months):
            return js(year, month + months, day)
        case .addYears(let years):
            return js(year + years, month, day)
        case .nextWeekday(let weekday):
            return nextWeekday(weekday, after: date)
        case .weekly(let interval, let weekday):
            return nextWeekday(weekday, after: date).adding(days: (interval - 1) * 7)
        case .monthlyDay(let target, let interval):
            // setDate(1); setMonth(+interval); setDate(day); if the day rolled over, setDate(0).
            let firstDay = js(year, month + interval, 1)
            let candidate = js(firstDay.year, firstDay.month - 1, target)
            return candidate.day == target ? candidate : js(candidate.year, candidate.month - 1, 0)
        case .dayOfNextMonth(.first):
            return js(year, month + 1, 1)
        case .dayOfNextMonth(.last):
            return js(year, month + 2, 0)
        case .workdayOfNextMonth(.first):
            return firstWorkday(onOrAfter: js(year, month + 1, 1))
        case .workdayOfNextMonth(.last):
            return lastWorkday(onOrBefore: js(year, month + 2, 0))
        case .firstWeekdayOfNextMonth(let weekday):
            // setMonth(+1) before setDate(1): the kept day may roll into the month after.
            let moved = js(year, month + 1, day)
            return first(weekday, onOrAfter: js(moved.year, moved.month - 1, 1))
        case .lastWeekdayOfNextMonth(let weekday):
            return last(weekday, onOrBefore: js(year, month + 2, 0))
        case .monthlyWeekday(let position, let target, let interval):
            let firstDay = js(year, month + interval, 1)
            let lastDay = js(firstDay.year, firstDay.month, 0)
            switch (target, position) {
            case (.workday, .first): return firstWorkday(onOrAfter: firstDay)
            case (.workday, .last): return lastWorkday(onOrBefore: lastDay)
            case (.workday, _): return firstDay  // the web app computes no second/third/fourth workday
            case (.weekday(let weekday), .last): return last(weekday, onOrBefore: lastDay)
            case (.weekday(let weekday), _):
                let nth = [Position.first, .second, .third, .fourth].firstIndex(of: position)!
                return first(weekday, onOrAfter: firstDay).adding(days: nth * 7)
            }
        case .yearlyDate(let target, let targetMonth, let interval):
            // setDate(1); setFullYear(+interval); setMonth(month - 1); setDate(day); if rolled over, setDate(0).
            let candidate = js(year + interval, targetMonth - 1, target)
            return candidate.day == target ? candidate : js(candidate.year, candidate.month - 1, 0)
        case .dayOfNextYear(.first):
            return js(year + 1, 0, 1)
        case .dayOfNextYear(.last):
            return js(year + 1, 11, 31)
        case .workdayOfNextYear(.first):
            return firstWorkday(onOrAfter: js(year + 1, 0, 1))
        case .workdayOfNextYear(.last):
            return lastWorkday(onOrBefore: js(year + 1, 11, 31))
        case .yearlyWorkday(.first, let interval):
            return firstWorkday(onOrAfter: js(year + interval, 0, 1))
        case .yearlyWorkday(.last, let interval):
            return lastWorkday(onOrBefore: js(year + interval, 11, 31))
        case .event:
            return date
        }
    }

    /// The web app's "ensure the calculated date is in the future" (app.js 7776–7800): for the
    /// patterns that catch up, step again from the answer while it is today or earlier. (Read in
    /// a UTC browser; a browser east of UTC already accepts today — see the type's comment.)
    static func catchUp(_ pattern: Pattern, _ first: LocalDate, today: LocalDate) -> LocalDate {
        guard pattern.catchesUp, first <= today else { return first }
        switch pattern {
        case .addDays(let days):
            // Whole steps until after today, in one go.
            let steps = (first.days(to: today) / days) + 1
            return first.adding(days: steps * days)
        case .workdays:
            // Stepping from a workday visits every workday: the first one after today.
            return firstWorkday(onOrAfter: today.adding(days: 1))
        default:
            // Months and years: the day can drift (31 → 3 → 3), so step one by one; bounded by
            // the year range, at most some 120,000 steps.
            var next = first
            while next <= today { next = step(pattern, next) }
            return next
        }
    }

    /// `new Date(Date.UTC(year, monthIndex, day))`: month 0–11 and day 1–31 roll over either way.
    static func js(_ year: Int, _ monthIndex: Int, _ day: Int) -> LocalDate {
        let firstOfMonth = LocalDate(
            year: year + Civil.floorDiv(monthIndex, 12), month: monthIndex - 12 * Civil.floorDiv(monthIndex, 12) + 1,
            day: 1)
        return firstOfMonth.adding(days: day - 1)
    }

    /// JS `getDay()` of a day: Sunday 0 … Saturday 6.
    static func jsWeekday(_ date: LocalDate) -> Weekday {
        Weekday(rawValue: (date.weekday + 1) % 7)!
    }

    private static func isWorkday(_ date: LocalDate) -> Bool {
        date.weekday < 5
    }

    /// `getNextWeekday` (app.js 7805): strictly after `date`, 1–7 days on.
    private static func nextWeekday(_ weekday: Weekday, after date: LocalDate) -> LocalDate {
        var days = weekday.rawValue - jsWeekday(date).rawValue
        if days <= 0 { days += 7 }
        return date.adding(days: days)
    }

    private static func first(_ weekday: Weekday, onOrAfter date: LocalDate) -> LocalDate {
        date.adding(days: (weekday.rawValue - jsWeekday(date).rawValue + 7) % 7)
    }

    private static func last(_ weekday: Weekday, onOrBefore date: LocalDate) -> LocalDate {
        date.adding(days: -((jsWeekday(date).rawValue - weekday.rawValue + 7) % 7))
    }

    /// The first Monday–Friday on or after `date` (the web app's `while (getDay() is 0 or 6) setDate(+1)`).
    private static func firstWorkday(onOrAfter date: LocalDate) -> LocalDate {
        var date = date
        while !isWorkday(date) { date = date.adding(days: 1) }
        return date
    }

    private static func lastWorkday(onOrBefore date: LocalDate) -> LocalDate {
        var date = date
        while !isWorkday(date) { date = date.adding(days: -1) }
        return date
    }
}

extension TickedifyRecurrence.Pattern {
    /// The pattern's count of days, weeks, months or years, where it has one.
    var interval: Int? {
        switch self {
        case .addDays(let count), .everyDays(let count), .addMonths(let count), .addYears(let count): count
        case .weekly(let interval, _): interval * 7
        case .monthlyDay(_, let interval), .monthlyWeekday(_, _, let interval), .yearlyDate(_, _, let interval),
            .yearlyWorkday(_, let interval):
            interval
        default: nil
        }
    }
}
