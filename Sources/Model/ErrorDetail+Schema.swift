import OpenAPIKit

extension ErrorDetail {
    /// `ErrorDetail` in /openapi.json.
    public static let schemaComponent = SchemaComponent(
        "ErrorDetail",
        schema: .closedObject(
            [
                "code": .string(description: "Stable, machine-readable (bad_parameter, upstream_timeout, …)."),
                "message": .string(description: "For people; never carries a secret."),
            ], description: "What went wrong."))
}
