import OpenAPIKit

/// The shapes daygate's schemas are made of (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
extension JSONSchema {
    /// A closed object (`additionalProperties: false`). `required` nil means every property is
    /// always written (a type whose `encode(to:)` writes optionals as explicit `null`).
    public static func closedObject(
        _ properties: [String: JSONSchema], required: [String]? = nil, description: String? = nil
    ) -> JSONSchema {
        .object(
            description: description, properties: sortedProperties(properties, required: required),
            additionalProperties: .init(false))
    }

    /// `properties` in key order, each required unless `required` is given and leaves it out.
    public static func sortedProperties(
        _ properties: [String: JSONSchema], required: [String]? = nil
    ) -> OrderedDictionary<String, JSONSchema> {
        var sorted = OrderedDictionary<String, JSONSchema>()
        for (key, schema) in properties.sorted(by: { $0.key < $1.key }) {
            let isRequired = required?.contains(key) ?? true
            sorted[key] = isRequired ? schema.requiredSchemaObject() : schema.optionalSchemaObject()
        }
        return sorted
    }

    /// An object whose keys are free (names of sections, of checks) and whose values share a schema.
    public static func map(_ values: JSONSchema, description: String? = nil) -> JSONSchema {
        .object(description: description, additionalProperties: .init(values))
    }

    /// One of `values` (or `null`, when `nullable`).
    public static func enumeration(_ values: [String], nullable: Bool = false, description: String? = nil)
        -> JSONSchema
    {
        let allowed = values.map { AnyCodable($0) } + (nullable ? [AnyCodable(nil as String?)] : [])
        return .string(nullable: nullable, description: description, allowedValues: allowed)
    }

    /// `anyOf: [schema, {"type": "null"}]`: a value that may also be `null`.
    public static func orNull(_ schema: JSONSchema, description: String? = nil) -> JSONSchema {
        .any(of: [schema, .null()], core: .init(description: description))
    }

    /// A string of at most `max` characters (`nullable`: or `null`).
    public static func text(
        min: Int? = nil, max: Int, nullable: Bool = false, format: JSONTypeFormat.StringFormat = .unspecified,
        pattern: String? = nil, description: String? = nil
    ) -> JSONSchema {
        .string(
            format: format, nullable: nullable, description: description, minLength: min, maxLength: max,
            pattern: pattern)
    }
}
