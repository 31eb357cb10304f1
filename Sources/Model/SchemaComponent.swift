import OpenAPIKit

/// A named schema of /openapi.json (`components/schemas/<name>`), declared next to the type or
/// operation it describes, with the components its schema refers to: whoever uses it brings
/// everything it needs into the document (`closure`).
public struct SchemaComponent: Sendable {
    /// The key under `components/schemas` (`Event`); clients know the types by these names.
    public let name: String
    /// The schema; other components appear in it as `reference`s.
    public let schema: JSONSchema
    /// The components `schema` refers to.
    public let uses: [SchemaComponent]

    /// A component named `name` whose schema refers (only) to the components in `uses`.
    public init(_ name: String, uses: [SchemaComponent] = [], schema: JSONSchema) {
        self.name = name
        self.uses = uses
        self.schema = schema
    }

    /// Any JSON: the schema of a body nothing is known of (a test's operation); every backend in
    /// the catalog declares its own.
    public static let anyJSON = SchemaComponent("AnyJSON", schema: .fragment(.init()))

    /// `{"$ref": "#/components/schemas/<name>"}`.
    public var reference: JSONSchema {
        .reference(.component(named: name))
    }

    /// This component and every component it uses, directly or not, by name.
    public var closure: [String: JSONSchema] {
        var all = [name: schema]
        for component in uses {
            all.merge(component.closure) { mine, _ in mine }
        }
        return all
    }
}
