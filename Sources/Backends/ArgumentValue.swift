import Model

/// A typed argument of a backend operation, as a route passes it.
public enum ArgumentValue: Sendable, Hashable, CustomStringConvertible {
    case date(LocalDate)
    case int(Int)
    case string(String)
    case bool(Bool)

    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case date, int, string, bool
    }

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

    public var date: LocalDate? {
        if case .date(let value) = self { return value }
        return nil
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var int: Int? {
        if case .int(let value) = self { return value }
        return nil
    }
}

/// One argument an operation takes.
public struct OperationArgument: Sendable, Hashable {
    public var name: String
    public var kind: ArgumentValue.Kind
    public var required: Bool

    public init(_ name: String, _ kind: ArgumentValue.Kind, required: Bool = false) {
        self.name = name
        self.kind = kind
        self.required = required
    }
}
