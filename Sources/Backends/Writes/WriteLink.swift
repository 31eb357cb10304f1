/// An OpenAPI link from a write's success answer to another operation (`links` of the
/// response): which operation the answer's values feed and how, so that a client — and
/// schemathesis' stateful phase in `make test` — can chain them (a created event to its update
/// and delete).
public struct WriteLink: Sendable {
    /// The key under the response's `links`.
    public var name: String
    /// The operation it leads to (`operationId`).
    public var operationID: String
    /// Its parameters: name → runtime expression (`$response.body#/event/id`).
    public var parameters: [(name: String, expression: String)]

    public init(_ name: String, to operationID: String, parameters: [(name: String, expression: String)]) {
        self.name = name
        self.operationID = operationID
        self.parameters = parameters
    }

    /// A link that passes the id at `pointer` in the answer's body as the `id` path parameter.
    public static func id(_ name: String, to operationID: String, from pointer: String) -> WriteLink {
        WriteLink(name, to: operationID, parameters: [("id", "$response.body#\(pointer)")])
    }
}
