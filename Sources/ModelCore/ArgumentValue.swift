/// A typed argument of a backend operation, as a route passes it (and as the cache keeps it
/// with each entry).
public enum ArgumentValue: Sendable, Hashable, CustomStringConvertible {
    case date(LocalDate)
    case int(Int)
    case string(String)
    case bool(Bool)

    /// The type of an argument, as route files name it (`type: date`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case date, int, string, bool
    }

    /// Reads back the canonical text form (`description`) of a value of `kind`; nil when
    /// `text` is not one.
    public init?(kind: Kind, text: String) {
        switch kind {
        case .date:
            guard let date = LocalDate(text) else { return nil }
            self = .date(date)
        case .int:
            guard let int = Int(text) else { return nil }
            self = .int(int)
        case .string:
            self = .string(text)
        case .bool:
            switch text {
            case "true": self = .bool(true)
            case "false": self = .bool(false)
            default: return nil
            }
        }
    }

    /// What sort of value this is.
    public var kind: Kind {
        switch self {
        case .date: .date
        case .int: .int
        case .string: .string
        case .bool: .bool
        }
    }

    /// The canonical text form: cache keys and upstream queries use it.
    public var description: String {
        switch self {
        case .date(let value): value.description
        case .int(let value): String(value)
        case .string(let value): value
        case .bool(let value): value ? "true" : "false"
        }
    }

    /// The day, when this is a date.
    public var date: LocalDate? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The text, when this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, when this is an int.
    public var int: Int? {
        if case .int(let value) = self { return value }
        return nil
    }
}
