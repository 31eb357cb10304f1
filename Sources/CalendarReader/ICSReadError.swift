/// Why a whole feed could not be read (a bad event is an `ICSIssue`, not an error).
public enum ICSReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input is larger than the configured cap.
    case tooLarge(bytes: Int, limit: Int)
    /// The input is not an iCalendar stream at all (HTML, JSON, an empty body …).
    case notICalendar(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            return "the calendar feed is \(bytes) bytes, more than the limit of \(limit) bytes"
        case .notICalendar(let message):
            return "not an iCalendar feed: \(message)"
        }
    }
}
