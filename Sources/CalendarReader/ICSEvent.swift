/// A VEVENT as read from the feed, zones resolved, nothing expanded yet.
public struct ICSEvent: Sendable, Equatable {
    public var uid: String
    public var summary: String?
    public var location: String?
    public var description: String?
    /// `CONFIRMED`, `TENTATIVE`, `CANCELLED` (upper-cased), if given.
    public var status: String?
    public var start: ICSEventTime
    /// DTEND, if given (exclusive).
    public var end: ICSEventTime?
    /// DURATION, if given instead of DTEND.
    public var duration: ICSDuration?
    public var rule: ICSRecurrenceRule?
    public var recurrenceDates: [ICSRecurrenceDate] = []
    public var exceptionDates: [ICSEventTime] = []
    /// Set on an override of one instance of a recurring event.
    public var recurrenceID: ICSEventTime?
    /// `RECURRENCE-ID;RANGE=THISANDFUTURE`: the override also applies to every later instance.
    public var thisAndFuture = false
    public var sequence = 0
    /// The line of `BEGIN:VEVENT`.
    public var lineNumber: Int

    public init(uid: String, start: ICSEventTime, lineNumber: Int = 0) {
        self.uid = uid
        self.start = start
        self.lineNumber = lineNumber
    }

    /// Whether STATUS is CANCELLED.
    public var isCancelled: Bool { status == "CANCELLED" }

    /// Whether the event repeats (RRULE or RDATE).
    public var isRecurring: Bool { rule != nil || !recurrenceDates.isEmpty }
}
