/// One RDATE value: a start, and for a PERIOD (`start/end` or `start/duration`) its own end.
public struct ICSRecurrenceDate: Sendable, Equatable {
    public var start: ICSEventTime
    public var end: ICSEventTime?
    public var duration: ICSDuration?

    public init(start: ICSEventTime, end: ICSEventTime? = nil, duration: ICSDuration? = nil) {
        self.start = start
        self.end = end
        self.duration = duration
    }
}
