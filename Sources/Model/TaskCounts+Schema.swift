import OpenAPIKit

extension TaskCounts {
    /// `TaskCounts` in /openapi.json.
    public static let schemaComponent = SchemaComponent(
        "TaskCounts",
        schema: .closedObject(
            [
                "inbox": .integer,
                "acties": .integer,
                "opvolgen": .integer,
                "projecten": .integer,
                "uitgesteld": .integer,
            ], description: "Tickedify's sidebar counts."))
}
