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

extension ICSIssue {
    /// How many problems of one feed are listed one by one.
    public static let maximumListed = 100

    /// `issues` with at most ``maximumListed`` problems, the rest counted in one last issue:
    /// a broken feed says what is wrong without its issues outgrowing its events. Every `.limit`
    /// issue is kept (there are few, and they say what was left out).
    public static func bounded(_ issues: [ICSIssue], to maximum: Int = maximumListed) -> [ICSIssue] {
        let problems = issues.filter { $0.kind == .problem }
        guard problems.count > maximum else { return issues }
        var listed = 0
        var result: [ICSIssue] = []
        for issue in issues {
            if issue.kind == .problem {
                listed += 1
                if listed > maximum { continue }
            }
            result.append(issue)
        }
        result.append(
            ICSIssue(line: 1, message: "\(problems.count - maximum) more problems in this feed are not listed"))
        return result
    }
}
