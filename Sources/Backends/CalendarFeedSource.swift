/// Whose events a `CalendarFeedContribution` hands over: what the feed names an event by when
/// the event has no `calendar` of its own (8alls' events: `eightalls`, shown as `8alls`). A
/// subscribed calendar's event carries its calendar's name and is named by that instead.
public struct CalendarFeedSource: Sendable, Hashable {
    /// The start of the entries' UIDs (`eightalls-<id>@daygate`): stable, so that a calendar app
    /// sees an edited event as the same entry.
    public var name: String
    /// The entries' category, as a person reads it (`8alls`).
    public var category: String

    public init(name: String, category: String) {
        self.name = name
        self.category = category
    }
}
