import Model

/// Tickedify's recurring tasks: the next date of a task with `herhalingActief` and a `herhalingType`,
/// computed as the Tickedify web app computes it before it sends POST /api/taak/recurring
/// (the server's own PUT /api/taak/:id never creates the next occurrence).
///
/// Pure and state-free: a pattern string in, a `LocalDate` out, or a `Refusal` that names the pattern
/// and the reason — the gateway refuses before it writes anything.
///
/// Line numbers refer to `public/app.js` of nrgiser71/tickedify at commit 83baa84:
/// `calculateNextRecurringDate` (7470–7803) and its helpers (7805–7971), `calculateEventBasedDate`
/// (11048), the recurrence popup that writes the string (`updateHerhalingValue`, 3242–3293) and the
/// popup's reader (`parseHerhalingValue`, 3314–3404). The legacy names are listed at 3419–3461.
///
/// The web app parses the task's date (`"2026-03-29"` or `"2026-03-29T00:00:00.000Z"`) as UTC
/// midnight, does its arithmetic with the browser's local `Date` setters and cuts the answer out
/// of `toISOString()`. Only in a browser whose zone is UTC do these agree; elsewhere the web app
/// can land a day off (east of UTC: one day early when the step crosses the spring DST change;
/// west of UTC: it even reads the weekday of the previous day). Those are accidents of the
/// browser's zone, not rules: this type computes the calendar rule — the web app's answers in a
/// UTC browser — and the same answer whatever the household's zone. The JS `Date` behaviour that
/// *is* part of the rule (month and day overflow of `setMonth`, `setFullYear`, `setDate`) is
/// reproduced; see `TickedifyRecurrence+NextDate.swift`.
public enum TickedifyRecurrence {
    /// A weekday in JavaScript's `getDay()` numbering (Sunday = 0 … Saturday = 6).
    public enum Weekday: Int, Sendable, Hashable, CaseIterable {
        case sunday = 0
        case monday
        case tuesday
        case wednesday
        case thursday
        case friday
        case saturday
    }

    /// Which occurrence in a month (`monthly-weekday-<position>-…`).
    public enum Position: String, Sendable, Hashable, CaseIterable {
        case first, second, third, fourth, last
    }

    /// The day a `monthly-weekday-` pattern counts: a weekday, or any Monday–Friday (`workday`).
    public enum MonthlyTarget: Sendable, Hashable {
        case weekday(Weekday)
        case workday
    }

    /// First or last (`yearly-special-first-workday-…`, `eerste-…`, `laatste-…`).
    public enum End: Sendable, Hashable {
        case first, last
    }

    /// `event-<days>-voor-…` (before) or `event-<days>-na-…` (after).
    public enum Direction: String, Sendable, Hashable {
        case before = "voor"
        case after = "na"
    }

    /// Every `herhalingType` the web app computes a next date for.
    ///
    /// "Catches up" means the web app, after the first step, keeps stepping from its own answer
    /// while the answer is not after today (app.js 7776–7800); the other patterns return their
    /// first answer directly, even a day in the past.
    public enum Pattern: Sendable, Hashable {
        /// `dagelijks` (1, app.js 7478; popup 3252), `om-de-dag` (2, 7501), `wekelijks` (7, 7489),
        /// `2-weken` (14, 7505), `3-weken` (21, 7509): the date plus so many days; catches up.
        case addDays(Int)
        /// `werkdagen` (app.js 7482; popup 3255): the next Monday–Friday after the date; catches up.
        case workdays
        /// `maandelijks` (1, app.js 7493), `2-maanden` (7513), `3-maanden` (7517), `6-maanden` (7521):
        /// JS `setMonth(month + n)`, which overflows (31 January + 1 month = 3 March); catches up.
        case addMonths(Int)
        /// `jaarlijks` (app.js 7497): JS `setFullYear(year + 1)`, which overflows
        /// (29 February 2024 → 1 March 2025); catches up.
        case addYears(Int)
        /// `daily-<n>` (app.js 7614; written by the popup for n > 1, 3252): the date plus n days.
        case everyDays(Int)
        /// `maandag` … `zondag` (app.js 7526–7539): the next such weekday after the date.
        case nextWeekday(Weekday)
        /// `weekly-<interval>-<day>` (app.js 7595; popup 3261, day 0–6 with 0 = Sunday, 7 is read as
        /// Sunday too): the next such weekday after the date, plus interval − 1 weeks.
        case weekly(interval: Int, weekday: Weekday)
        /// `monthly-day-<day>-<interval>` (app.js 7627, helper 7831; popup 3266): that day of the month
        /// `interval` months after the date's month, or that month's last day when it is shorter.
        case monthlyDay(day: Int, interval: Int)
        /// `eerste-dag-maand`, `laatste-dag-maand` (app.js 7542–7545): the first / last day of the next month.
        case dayOfNextMonth(End)
        /// `eerste-werkdag-maand`, `laatste-werkdag-maand` (app.js 7546–7549): the first / last
        /// Monday–Friday of the next month.
        case workdayOfNextMonth(End)
        /// `eerste-<weekday>-maand` (app.js 7552–7565, helper 7905): the first such weekday of the
        /// month after the date — found with `setMonth` before `setDate(1)`, so a date late in a
        /// month whose next month is shorter skips that month (31 January → first Monday of March).
        case firstWeekdayOfNextMonth(Weekday)
        /// `laatste-<weekday>-maand` (app.js 7568–7581, helper 7918): the last such weekday of the next month.
        case lastWeekdayOfNextMonth(Weekday)
        /// `monthly-weekday-<position>-<day>-<interval>` (app.js 7653; popup 3272): the nth / last
        /// weekday (1–7, 7 = Sunday) or workday of the month `interval` months on. For `workday` only
        /// `first` and `last` are computed; `second`/`third`/`fourth` give the month's 1st (app.js 7674–7690).
        case monthlyWeekday(position: Position, target: MonthlyTarget, interval: Int)
        /// `yearly-<day>-<month>-<interval>` (app.js 7639, helper 7847; popup 3278): that day of that
        /// month `interval` years after the date's year, or the month's last day when it is shorter
        /// (29 February in a common year → 28 February).
        case yearlyDate(day: Int, month: Int, interval: Int)
        /// `eerste-dag-jaar`, `laatste-dag-jaar` (app.js 7584–7587): 1 January / 31 December of the next year.
        case dayOfNextYear(End)
        /// `eerste-werkdag-jaar`, `laatste-werkdag-jaar` (app.js 7588–7591): the first / last
        /// Monday–Friday of the next year.
        case workdayOfNextYear(End)
        /// `yearly-special-first-workday-<interval>`, `yearly-special-last-workday-<interval>`
        /// (app.js 7733; popup 3283): the first / last Monday–Friday of the year `interval` years on.
        case yearlyWorkday(End, interval: Int)
        /// `event-<days>-<voor|na>-<name>` (app.js 7768 and 11048; popup 3289): so many days before
        /// or after a date the person gives when completing the task (the task's own date is not used).
        case event(days: Int, direction: Direction, name: String)

        /// Whether the web app keeps stepping until the answer is after today.
        public var catchesUp: Bool {
            switch self {
            case .addDays, .workdays, .addMonths, .addYears: true
            default: false
            }
        }
    }

    /// Why a next date cannot be computed. `description` is a sentence for a person.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// No pattern: the task does not recur.
        case empty
        /// A string the web app does not know.
        case unknownPattern(String)
        /// A known form with numbers or words the web app would not compute (or would only by accident).
        case malformed(pattern: String, reason: String)
        /// An `event-` pattern needs the date of the next event, which only the person knows.
        case needsEventDate(pattern: String)
        /// An event date was given for a pattern that is not event-based.
        case eventDateNotApplicable(pattern: String)
        /// The answer would fall outside the years 0001–9999 (the web app's own `YYYY-MM-DD` check fails).
        case outOfRange(pattern: String)

        public var description: String {
            switch self {
            case .empty:
                "The task has no recurrence pattern (herhalingType is empty), so there is no next date."
            case .unknownPattern(let pattern):
                "The recurrence pattern \"\(pattern)\" is not one the Tickedify web app knows, "
                    + "so daygate cannot compute the next date."
            case .malformed(let pattern, let reason):
                "The recurrence pattern \"\(pattern)\" cannot be computed: \(reason)."
            case .needsEventDate(let pattern):
                "The recurrence pattern \"\(pattern)\" counts from an event: "
                    + "give the date of the next event to compute the next date."
            case .eventDateNotApplicable(let pattern):
                "The recurrence pattern \"\(pattern)\" does not count from an event, "
                    + "so an event date does not apply to it."
            case .outOfRange(let pattern):
                "The recurrence pattern \"\(pattern)\" gives a next date outside the years 0001–9999."
            }
        }
    }

    /// The next date of a recurring task, as the web app computes it when the task is completed.
    ///
    /// - Parameters:
    ///   - herhalingType: the task's pattern string.
    ///   - date: the task's own date (`verschijndatum`).
    ///   - today: the household's today (patterns that catch up step until after it).
    ///   - eventDate: the date of the next event, for `event-` patterns only.
    public static func nextDate(
        for herhalingType: String, from date: LocalDate, today: LocalDate, eventDate: LocalDate? = nil
    ) throws(Refusal) -> LocalDate {
        let pattern = try parse(herhalingType)
        return try nextDate(of: pattern, text: herhalingType, from: date, today: today, eventDate: eventDate)
    }
}
