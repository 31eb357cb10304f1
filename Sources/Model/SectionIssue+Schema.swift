import OpenAPIKit

extension SectionIssue {
    /// `SectionIssue` in /openapi.json.
    public static let schemaComponent = SchemaComponent(
        "SectionIssue",
        schema: .closedObject(
            [
                "scope": .string(description: "What the issue is about, e.g. an enrollment's label."),
                "code": .string,
                "message": .string,
            ], description: "A part of a section that failed while the rest answered."))
}
