import Model

/// One argument an operation takes.
public struct OperationArgument: Sendable, Hashable {
    /// The argument's name (`date`).
    public var name: String
    /// The type of its values.
    public var kind: ArgumentValue.Kind
    /// Whether the operation cannot run without it.
    public var required: Bool

    /// An argument `name` of `kind`, optional unless `required`.
    public init(_ name: String, _ kind: ArgumentValue.Kind, required: Bool = false) {
        self.name = name
        self.kind = kind
        self.required = required
    }
}
