/// Something in a feed that was skipped or guessed, or left out at a limit: where it was and why.
public struct ICSIssue: Sendable, Equatable, CustomStringConvertible {
    /// What kind of issue it is.
    public enum Kind: Sendable, Equatable {
        /// An event skipped or a guess made (a malformed line, an unknown TZID).
        case problem
        /// Part of the feed left out because a limit of `ICSLimits` or of the `ICSWorkBudget` was reached.
        case limit
    }

    /// The physical line (1-based) the problem starts on.
    public let line: Int
    /// The event's UID when it was known.
    public let uid: String?
    public let message: String
    public let kind: Kind

    public init(line: Int, uid: String? = nil, message: String, kind: Kind = .problem) {
        self.line = line
        self.uid = uid
        self.message = message
        self.kind = kind
    }

    public var description: String {
        "line \(line)" + (uid.map { " (UID \($0))" } ?? "") + ": " + message
    }
}
