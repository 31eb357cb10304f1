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
    /// The RRULEs: usually one; more than one is discouraged but legal (RFC 5545 §3.8.5.3), and
    /// the instances are their union.
    public var rules: [ICSRecurrenceRule] = []
    public var recurrenceDates: [ICSRecurrenceDate] = []
    public var exceptionDates: [ICSEventTime] = []
    /// Set on an override of one instance of a recurring event.
    public var recurrenceID: ICSEventTime?
    /// `RECURRENCE-ID;RANGE=THISANDFUTURE`: the override also applies to every later instance.
    public var thisAndFuture = false
    public var sequence = 0
    /// DTSTAMP, when given in UTC: of two versions with the same SEQUENCE, the later stamp wins
    /// (RFC 5546 §2.1.5).
    public var stamp: ICSLocalDateTime?
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
    public var isRecurring: Bool { !rules.isEmpty || !recurrenceDates.isEmpty }

    /// Whether this version of a component supersedes `other` (same UID, and the same
    /// RECURRENCE-ID or none): a higher SEQUENCE, or the same one and a later DTSTAMP (RFC 5546
    /// §2.1.5); otherwise the first in the feed stays.
    public func supersedes(_ other: ICSEvent) -> Bool {
        if sequence != other.sequence { return sequence > other.sequence }
        guard let stamp, let otherStamp = other.stamp else { return false }
        return stamp > otherStamp
    }
}
