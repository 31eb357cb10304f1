import Model

/// 8alls' part of `/v1/calendar.ics`: its events over the feed's days.
public struct EightAllsCalendarFeedPart: CalendarFeedPart {
    public func sections(for window: CalendarFeedWindow) -> [CalendarFeedSection] {
        [
            CalendarFeedSection(
                name: "events", operation: EightAllsEventsOperation().name,
                arguments: ["from": .date(window.from), "to": .date(window.to)])
        ]
    }

    public func contribution(_ input: CalendarFeedInput) -> CalendarFeedContribution {
        CalendarFeedContribution(events: input.decode([Event].self, "events") ?? [], from: Self.source)
    }

    /// 8alls' events have no calendar of their own: `eightalls-<id>@daygate`, category `8alls`.
    public static let source = CalendarFeedSource(name: "eightalls", category: "8alls")
}
