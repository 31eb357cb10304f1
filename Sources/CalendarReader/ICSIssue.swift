/// Something in a feed that was skipped or guessed: where it was and why.
public struct ICSIssue: Sendable, Equatable, CustomStringConvertible {
    /// The physical line (1-based) the problem starts on.
    public let line: Int
    /// The event's UID when it was known.
    public let uid: String?
    public let message: String

    public init(line: Int, uid: String? = nil, message: String) {
        self.line = line
        self.uid = uid
        self.message = message
    }

    public var description: String {
        "line \(line)" + (uid.map { " (UID \($0))" } ?? "") + ": " + message
    }
}
