import Model

/// The subscribed calendars' part of `/v1/calendar.ics`: their events over the feed's days, so
/// the phone sees one household calendar.
public struct ICSCalendarFeedPart: CalendarFeedPart {
    public func sections(for window: CalendarFeedWindow) -> [CalendarFeedSection] {
        [
            CalendarFeedSection(
                name: "subscribed_events", operation: ICSEventsOperation().name,
                arguments: ["from": .date(window.from), "to": .date(window.to)])
        ]
    }

    public func contribution(_ input: CalendarFeedInput) -> CalendarFeedContribution {
        CalendarFeedContribution(events: input.decode([Event].self, "subscribed_events") ?? [], from: Self.source)
    }

    /// Every subscribed calendar's event carries its calendar's name, which names its entry
    /// (`school-<id>@daygate`); this is only for one that would not.
    public static let source = CalendarFeedSource(name: "ics", category: "Calendars")
}
