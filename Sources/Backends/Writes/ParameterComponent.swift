import OpenAPIKit

/// A named parameter of /openapi.json (`components/parameters/<name>`), such as a write's path
/// parameter (`EventID`).
public struct ParameterComponent: Sendable {
    /// The key under `components/parameters`.
    public let name: String
    public let parameter: OpenAPI.Parameter

    public init(_ name: String, _ parameter: OpenAPI.Parameter) {
        self.name = name
        self.parameter = parameter
    }

    /// A path parameter: always required.
    public static func path(_ component: String, name: String, description: String, schema: JSONSchema)
        -> ParameterComponent
    {
        ParameterComponent(component, .path(name: name, schema: schema, description: description))
    }

    /// An optional query parameter (`?date=`): the write reads it from `WriteRequest.query`.
    public static func query(_ component: String, name: String, description: String, schema: JSONSchema)
        -> ParameterComponent
    {
        ParameterComponent(component, .query(name: name, schema: schema, description: description))
    }

    /// `{"$ref": "#/components/parameters/<name>"}`.
    public var reference: Either<OpenAPI.Reference<OpenAPI.Parameter>, OpenAPI.Parameter> {
        .reference(.component(named: name))
    }
}
