import Foundation
import Model

/// Tickedify's part of `/v1/calendar.ics`: the planned tasks and blocked slots of each day's plan
/// (breaks are left out), as entries with their duration. A plan is fetched per day, so the feed
/// asks only for the days from a week back to ``daysAhead`` days ahead — planning further out is
/// rare, and every day is one upstream call when its cached copy expires.
public struct TickedifyCalendarFeedPart: CalendarFeedPart {
    public static let daysBack = 7
    public static let daysAhead = 13
    /// A plan item without a duration fills this many minutes.
    public static let defaultMinutes = 30
    /// The longest a plan item fills: a day (Tickedify's durations are its own; one of
    /// `Int.max` minutes is a broken answer, not an entry that ends in another era).
    public static let maximumMinutes = 24 * 60

    public func sections(for window: CalendarFeedWindow) -> [CalendarFeedSection] {
        let first = max(window.from, window.today.adding(days: -Self.daysBack))
        let last = min(window.to, window.today.adding(days: Self.daysAhead))
        return CalendarFeedWindow(from: first, to: last, today: window.today, zone: window.zone).days.map { day in
            CalendarFeedSection(
                name: Self.section(day), operation: TickedifyDailyPlanOperation().name, arguments: ["date": .date(day)])
        }
    }

    static func section(_ day: LocalDate) -> String { "plan_\(day)" }

    public func contribution(_ input: CalendarFeedInput) -> CalendarFeedContribution {
        var entries: [CalendarFeedEntry] = []
        for day in input.window.days {
            guard let items = input.decode([PlanItem].self, Self.section(day)) else { continue }
            entries += Self.entries(items, on: day, zone: input.window.zone)
        }
        return CalendarFeedContribution(entries: entries)
    }

    /// Items of one hour follow each other in plan order (`position`), from the full hour on.
    static func entries(_ items: [PlanItem], on day: LocalDate, zone: TimeZone) -> [CalendarFeedEntry] {
        var minuteInHour: [Int: Int] = [:]
        var entries: [CalendarFeedEntry] = []
        for item in items.sorted(by: { ($0.hour, $0.position) < ($1.hour, $1.position) }) {
            let minutes = min(max(1, item.durationMinutes ?? Self.defaultMinutes), Self.maximumMinutes)
            let offset = minuteInHour[item.hour, default: 0]
            minuteInHour[item.hour] = offset + minutes
            guard item.kind != .break, (0...23).contains(item.hour) else { continue }
            let start = day.date(hour: item.hour, minute: 0, in: zone).addingTimeInterval(Double(offset * 60))
            let isTask = item.kind == .task
            entries.append(
                CalendarFeedEntry(
                    uid: "tickedify-plan-\(item.id)@daygate",
                    summary: isTask ? item.title : "Geblokkeerd: \(item.title)",
                    time: .instants(start: start, end: start.addingTimeInterval(Double(minutes * 60))),
                    description: isTask ? "Gepland in Tickedify" : "Geblokkeerd in Tickedify's dagplanning",
                    categories: [isTask ? "Tickedify" : "Tickedify: geblokkeerd"], status: "CONFIRMED"))
        }
        return entries
    }
}
