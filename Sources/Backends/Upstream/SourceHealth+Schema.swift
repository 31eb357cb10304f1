import Model
import OpenAPIKit

extension SourceHealth {
    /// `SourceError` in /openapi.json (`SourceHealth.LastError`).
    public static let lastErrorSchemaComponent = SchemaComponent(
        "SourceError",
        schema: .closedObject(
            ["code": .string, "message": .string, "at": .string(format: .dateTime)],
            description: "The last failure."))

    /// The keys `SourceHealth` writes into the object that holds it, all always written.
    public static var schemaProperties: [String: JSONSchema] {
        let time = JSONSchema.string(format: .dateTime, nullable: true)
        return [
            "last_success": time,
            "last_error": .orNull(lastErrorSchemaComponent.reference),
            "circuit": .enumeration(["closed", "open", "half_open"]),
            "circuit_open_until": time,
            "retry_after_until": time,
            "calls": .integer(description: "Upstream calls since the gateway started."),
            "errors": .integer(description: "Failed upstream calls since the gateway started."),
        ]
    }
}
