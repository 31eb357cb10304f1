import OpenAPIKit

extension SectionReport {
    /// `SectionReport` in /openapi.json: where a section's data came from.
    public static let schemaComponent = SchemaComponent(
        "SectionReport", uses: [ErrorDetail.schemaComponent, SectionIssue.schemaComponent],
        schema: .closedObject(
            [
                "status": .enumeration(["ok", "stale", "partial", "error", "timeout"]),
                "cache": .enumeration(["hit", "miss", "stale", "refreshed", "none"]),
                "age_seconds": .integer(description: "Age of the data served; left out when there is none."),
                "backend": .string,
                "duration_ms": .number,
                "error": ErrorDetail.schemaComponent.reference,
                "issues": .array(items: SectionIssue.schemaComponent.reference),
            ], required: ["status", "cache", "backend", "duration_ms"],
            description: "Where a section's data came from."))
}
