/// Every operation a route can name, by name.
public struct OperationRegistry: Sendable {
    public private(set) var operations: [String: any BackendOperation]

    public init(_ operations: [any BackendOperation]) {
        self.operations = Dictionary(operations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The operations of every registered backend (`BackendCatalog`).
    public static let standard = OperationRegistry(BackendCatalog.all.flatMap(\.operations))

    public subscript(name: String) -> (any BackendOperation)? {
        operations[name]
    }

    public var names: [String] { operations.keys.sorted() }
}
