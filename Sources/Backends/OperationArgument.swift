import Model

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
