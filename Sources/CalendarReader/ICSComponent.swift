/// A `BEGIN:NAME` … `END:NAME` block: its properties in order and its nested components.
public struct ICSComponent: Sendable, Equatable {
    public let name: String
    public var properties: [ICSContentLine]
    public var components: [ICSComponent]
    /// The line of `BEGIN:NAME`.
    public let lineNumber: Int
    /// The first problem met inside the block (a malformed line, a missing `END`), if any.
    public var defect: ICSIssue?

    public init(
        name: String, properties: [ICSContentLine] = [], components: [ICSComponent] = [], lineNumber: Int = 0,
        defect: ICSIssue? = nil
    ) {
        self.name = name
        self.properties = properties
        self.components = components
        self.lineNumber = lineNumber
        self.defect = defect
    }

    /// The first property named `name`.
    public func property(_ name: String) -> ICSContentLine? { properties.first { $0.name == name } }

    /// Every property named `name`, in order.
    public func properties(_ name: String) -> [ICSContentLine] { properties.filter { $0.name == name } }

    /// The nested components named `name`.
    public func components(_ name: String) -> [ICSComponent] { components.filter { $0.name == name } }
}
