import ModelCore

/// Expands an `RRULE` over a window of wall-clock time (RFC 5545 §3.3.10), lazily: without
/// `COUNT` it jumps straight to the period containing the window, so a daily rule from 1990
/// costs no more than one from yesterday. `DTSTART` always counts as the first instance.
/// Candidates that are not real dates (February 30) never exist, so they are skipped.
/// Work is bounded three times: at most `maximumInstances` results and `maximumSteps`
/// candidates for the rule, and the `ICSWorkBudget` of the whole reading or expansion (one
/// step per day and per candidate looked at). A period's candidates are never built all at
/// once (a yearly rule with every BYHOUR, BYMINUTE and BYSECOND has 31 million of them).
public struct ICSRecurrenceExpander: Sendable {
    /// The instances found and whether a cap cut the expansion short.
    public struct Expansion: Sendable, Equatable {
        public var instances: [ICSLocalDateTime]
        public var truncated: Bool
    }

    public let rule: ICSRecurrenceRule
    public let start: ICSLocalDateTime
    /// The last allowed instance on the same wall clock as `start` (inclusive).
    public let until: ICSLocalDateTime?
    public let maximumInstances: Int
    public let maximumSteps: Int

    /// The default instance cap.
    public static let defaultMaximumInstances = 10_000

    public init(
        rule: ICSRecurrenceRule, start: ICSLocalDateTime, until: ICSLocalDateTime?,
        maximumInstances: Int = defaultMaximumInstances, maximumSteps: Int = 2_000_000
    ) {
        var rule = rule
        // A value listed twice means nothing more, but would multiply the candidates.
        rule.bySecond = Array(Set(rule.bySecond)).sorted()
        rule.byMinute = Array(Set(rule.byMinute)).sorted()
        rule.byHour = Array(Set(rule.byHour)).sorted()
        rule.byMonthDay = Array(Set(rule.byMonthDay)).sorted()
        rule.byYearDay = Array(Set(rule.byYearDay)).sorted()
        rule.byWeekNo = Array(Set(rule.byWeekNo)).sorted()
        rule.byMonth = Array(Set(rule.byMonth)).sorted()
        rule.bySetPos = Array(Set(rule.bySetPos)).sorted()
        var days = Set<ICSRecurrenceRule.WeekdayNumber>()
        rule.byDay = rule.byDay.filter { days.insert($0).inserted }
        // Defaults derived from DTSTART, as RFC 5545 and python-dateutil do.
        if rule.byWeekNo.isEmpty && rule.byYearDay.isEmpty && rule.byMonthDay.isEmpty && rule.byDay.isEmpty {
            switch rule.frequency {
            case .yearly:
                if rule.byMonth.isEmpty { rule.byMonth = [start.month] }
                rule.byMonthDay = [start.day]
            case .monthly:
                rule.byMonthDay = [start.day]
            case .weekly:
                rule.byDay = [.init(weekday: start.weekday)]
            default:
                break
            }
        }
        self.rule = rule
        self.start = start
        self.until = until
        self.maximumInstances = maximumInstances
        self.maximumSteps = maximumSteps
    }

    /// The instances `t` with `lower <= t < upper`, spending from `budget` (by default the
    /// budget of the reading or expansion running, if any); truncated when it runs out.
    public func instances(
        from lower: ICSLocalDateTime, to upper: ICSLocalDateTime, budget: ICSWorkBudget? = ICSWorkBudget.current
    ) -> Expansion {
        var result: [ICSLocalDateTime] = []
        var produced = 0
        var steps = 0
        if let count = rule.count, count == 0 { return Expansion(instances: [], truncated: false) }
        if let until, start > until { return Expansion(instances: [], truncated: false) }
        // DTSTART is the first instance.
        produced = 1
        if start >= lower && start < upper { result.append(start) }
        if let count = rule.count, produced >= count { return Expansion(instances: result, truncated: false) }

        var period = rule.count == nil ? max(0, firstPeriod(containing: lower)) : 0
        while true {
            guard let periodStart = periodStart(period) else { break }
            if periodStart >= upper { break }
            if let until, periodStart > until { break }
            let candidates = candidates(period: period)
            steps += 1 + candidates.daysExamined
            if let budget, !budget.spend(1 + candidates.daysExamined) {
                return Expansion(instances: result, truncated: true)
            }
            for index in 0..<candidates.count {
                steps += 1
                if steps > maximumSteps { return Expansion(instances: result, truncated: true) }
                if let budget, !budget.spend() { return Expansion(instances: result, truncated: true) }
                let candidate = candidates[index]
                guard candidate > start else { continue }
                if let until, candidate > until { return Expansion(instances: result, truncated: false) }
                if let count = rule.count, produced >= count {
                    return Expansion(instances: result, truncated: false)
                }
                produced += 1
                if candidate >= upper { return Expansion(instances: result, truncated: false) }
                if candidate >= lower {
                    result.append(candidate)
                    if result.count >= maximumInstances { return Expansion(instances: result, truncated: true) }
                }
            }
            if steps >= maximumSteps { return Expansion(instances: result, truncated: true) }
            period += 1
        }
        return Expansion(instances: result, truncated: false)
    }

    // MARK: - Periods

    private var startWeekDay: Int {
        start.dayNumber - (start.weekday - rule.weekStart + 7) % 7
    }

    /// The index (in whole units of the frequency) of the unit containing `time`.
    private func unitIndex(_ time: ICSLocalDateTime) -> Int {
        switch rule.frequency {
        case .yearly: return time.year
        case .monthly: return time.year * 12 + time.month - 1
        case .weekly: return Civil.floorDiv(time.dayNumber - (time.weekday - rule.weekStart + 7) % 7, 7)
        case .daily: return time.dayNumber
        case .hourly: return time.dayNumber * 24 + time.hour
        case .minutely: return (time.dayNumber * 24 + time.hour) * 60 + time.minute
        case .secondly: return time.dayNumber * 86_400 + time.secondOfDay
        }
    }

    private func firstPeriod(containing time: ICSLocalDateTime) -> Int {
        guard time > start else { return 0 }
        // ISO-week years spill a few days into the neighbouring years: start one year early.
        let spill = rule.frequency == .yearly && !rule.byWeekNo.isEmpty ? 1 : 0
        return Civil.floorDiv(unitIndex(time) - spill - unitIndex(start), rule.interval)
    }

    /// The first wall-clock instant of period `index`, or nil when it is out of any sane range.
    private func periodStart(_ index: Int) -> ICSLocalDateTime? {
        let step = index * rule.interval
        switch rule.frequency {
        case .yearly:
            let year = start.year + step
            guard year < 10_000 else { return nil }
            // A week-numbered year may begin in the last days of December.
            return ICSLocalDateTime(year: year, month: 1, day: 1).adding(days: rule.byWeekNo.isEmpty ? 0 : -7)
        case .monthly:
            let months = start.year * 12 + start.month - 1 + step
            guard months / 12 < 10_000 else { return nil }
            return ICSLocalDateTime(year: months / 12, month: months % 12 + 1, day: 1)
        case .weekly:
            let day = startWeekDay + 7 * step
            return day > 2_932_896 ? nil : ICSLocalDateTime(dayNumber: day)
        case .daily:
            let day = start.dayNumber + step
            return day > 2_932_896 ? nil : ICSLocalDateTime(dayNumber: day)
        case .hourly:
            return start.adding(seconds: step * 3600 - start.minute * 60 - start.second)
        case .minutely:
            return start.adding(seconds: step * 60 - start.second)
        case .secondly:
            return start.adding(seconds: step)
        }
    }

    /// The candidates of one period, sorted: every matching day at every time of day, or the
    /// BYSETPOS picks among them. Made one at a time, so a period with millions costs only
    /// the ones looked at.
    struct Candidates {
        var days: [Int] = []
        var times: [Int] = []
        /// Offsets into `days × times` when BYSETPOS picks some.
        var picks: [Int]?
        /// The days of the period the BYxxx filters looked at.
        var daysExamined = 0

        var count: Int { picks?.count ?? days.count * times.count }

        subscript(index: Int) -> ICSLocalDateTime {
            let offset = picks?[index] ?? index
            return ICSLocalDateTime(dayNumber: days[offset / times.count], secondOfDay: times[offset % times.count])
        }
    }

    /// The candidates of period `index`, after BYxxx filters and BYSETPOS.
    func candidates(period index: Int) -> Candidates {
        guard let periodStart = periodStart(index) else { return Candidates() }
        let days: [Int]
        var scopeYear = periodStart.year
        switch rule.frequency {
        case .yearly:
            scopeYear = start.year + index * rule.interval
            if rule.byWeekNo.isEmpty && !rule.byMonth.isEmpty {
                // Only the months asked for (the common case, and the one VTIMEZONE rules use).
                days = Set(rule.byMonth).sorted().flatMap { month in
                    let first = Civil.days(year: scopeYear, month: month, day: 1)
                    return first..<(first + Civil.daysIn(month: month, year: scopeYear))
                }
            } else if rule.byWeekNo.isEmpty {
                let first = Civil.days(year: scopeYear, month: 1, day: 1)
                days = Array(first..<(first + Civil.daysIn(year: scopeYear)))
            } else {
                let first = Civil.days(year: scopeYear, month: 1, day: 1) - 7
                days = Array(first..<(first + Civil.daysIn(year: scopeYear) + 14))
            }
        case .monthly:
            let first = periodStart.dayNumber
            days = Array(first..<(first + Civil.daysIn(month: periodStart.month, year: periodStart.year)))
        case .weekly:
            days = Array(periodStart.dayNumber..<(periodStart.dayNumber + 7))
        case .daily, .hourly, .minutely, .secondly:
            days = [periodStart.dayNumber]
        }
        var result = Candidates(daysExamined: days.count)
        result.days = days.filter { matches(day: $0, scopeYear: scopeYear) }
        guard !result.days.isEmpty else { return Candidates(daysExamined: days.count) }
        result.times = timesOfDay(periodStart)
        guard !result.times.isEmpty else { return Candidates(daysExamined: days.count) }
        guard !rule.bySetPos.isEmpty else { return result }
        let all = result.days.count * result.times.count
        var picked = Set<Int>()
        for position in rule.bySetPos {
            let offset = position > 0 ? position - 1 : all + position
            if (0..<all).contains(offset) { picked.insert(offset) }
        }
        result.picks = picked.sorted()
        return result
    }

    /// The seconds of the day a period yields, sorted.
    private func timesOfDay(_ periodStart: ICSLocalDateTime) -> [Int] {
        let hours: [Int]
        let minutes: [Int]
        let seconds =
            rule.frequency == .secondly
            ? [periodStart.second] : (rule.bySecond.isEmpty ? [start.second] : rule.bySecond)
        switch rule.frequency {
        case .secondly, .minutely:
            guard rule.byHour.isEmpty || rule.byHour.contains(periodStart.hour) else { return [] }
            guard rule.byMinute.isEmpty || rule.byMinute.contains(periodStart.minute) else { return [] }
            guard rule.frequency == .minutely || rule.bySecond.isEmpty || rule.bySecond.contains(periodStart.second)
            else { return [] }
            hours = [periodStart.hour]
            minutes = [periodStart.minute]
        case .hourly:
            guard rule.byHour.isEmpty || rule.byHour.contains(periodStart.hour) else { return [] }
            hours = [periodStart.hour]
            minutes = rule.byMinute.isEmpty ? [start.minute] : rule.byMinute
        default:
            hours = rule.byHour.isEmpty ? [start.hour] : rule.byHour
            minutes = rule.byMinute.isEmpty ? [start.minute] : rule.byMinute
        }
        var times: [Int] = []
        for hour in hours {
            for minute in minutes {
                for second in seconds { times.append(hour * 3600 + minute * 60 + min(second, 59)) }
            }
        }
        return Array(Set(times)).sorted()
    }

    // MARK: - Day filters

    private func matches(day: Int, scopeYear: Int) -> Bool {
        let (year, month, dayOfMonth) = Civil.date(fromDays: day)
        if !rule.byMonth.isEmpty && !rule.byMonth.contains(month) { return false }
        if !rule.byWeekNo.isEmpty {
            let (weekYear, week, weeks) = isoWeek(day)
            if rule.frequency == .yearly && weekYear != scopeYear { return false }
            if !rule.byWeekNo.contains(where: { $0 == week || $0 == week - weeks - 1 }) { return false }
        } else if rule.frequency == .yearly && year != scopeYear {
            return false
        }
        if !rule.byYearDay.isEmpty {
            let yearDay = day - Civil.days(year: year, month: 1, day: 1) + 1
            let length = Civil.daysIn(year: year)
            if !rule.byYearDay.contains(where: { $0 == yearDay || $0 == yearDay - length - 1 }) { return false }
        }
        if !rule.byMonthDay.isEmpty {
            let length = Civil.daysIn(month: month, year: year)
            if !rule.byMonthDay.contains(where: { $0 == dayOfMonth || $0 == dayOfMonth - length - 1 }) { return false }
        }
        if !rule.byDay.isEmpty {
            let weekday = Civil.weekday(ofDay: day)
            let ordinalsApply =
                rule.frequency == .monthly || (rule.frequency == .yearly && rule.byWeekNo.isEmpty)
            let matched = rule.byDay.contains { entry in
                guard entry.weekday == weekday else { return false }
                guard let ordinal = entry.ordinal, ordinalsApply else { return true }
                let scopeFirst: Int
                let scopeLength: Int
                if rule.frequency == .monthly || !rule.byMonth.isEmpty {
                    scopeFirst = Civil.days(year: year, month: month, day: 1)
                    scopeLength = Civil.daysIn(month: month, year: year)
                } else {
                    scopeFirst = Civil.days(year: year, month: 1, day: 1)
                    scopeLength = Civil.daysIn(year: year)
                }
                let offset = day - scopeFirst
                return ordinal > 0 ? offset / 7 + 1 == ordinal : -((scopeLength - 1 - offset) / 7 + 1) == ordinal
            }
            if !matched { return false }
        }
        return true
    }

    /// The week-numbering year of `day`, its week number (week 1 holds at least four days
    /// of the year, weeks start on WKST) and how many weeks that year has.
    private func isoWeek(_ day: Int) -> (year: Int, week: Int, weeks: Int) {
        func firstWeekStart(_ year: Int) -> Int {
            let jan4 = Civil.days(year: year, month: 1, day: 4)
            return jan4 - (Civil.weekday(ofDay: jan4) - rule.weekStart + 7) % 7
        }
        var year = Civil.date(fromDays: day).year
        if day < firstWeekStart(year) {
            year -= 1
        } else if day >= firstWeekStart(year + 1) {
            year += 1
        }
        let first = firstWeekStart(year)
        return (year, (day - first) / 7 + 1, (firstWeekStart(year + 1) - first) / 7)
    }
}
