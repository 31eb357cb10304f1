import OpenAPIKit

extension ErrorBody {
    /// `Error` in /openapi.json: the body of every error answer.
    public static let schemaComponent = SchemaComponent(
        "Error", uses: [ErrorDetail.schemaComponent],
        schema: .closedObject(
            ["error": ErrorDetail.schemaComponent.reference], description: "The body of every error answer."))
}
