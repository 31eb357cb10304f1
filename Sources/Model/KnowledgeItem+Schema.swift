import OpenAPIKit

extension KnowledgeItem {
    /// `KnowledgeItem` in /openapi.json: every field is always written (explicit `null`s).
    public static let schemaComponent = SchemaComponent(
        "KnowledgeItem",
        schema: .closedObject(
            [
                "id": .string,
                "title": .string(nullable: true),
                "url": .string(nullable: true),
                "summary": .string(nullable: true),
                "content": .string(
                    nullable: true, description: "The item's text: in /v1/knowledge/items/{id} only; null in lists."),
                "type": .string(nullable: true),
                "tags": .array(items: .string),
                "created_at": .string(format: .dateTime, nullable: true),
                "permalink": .string(nullable: true),
            ], description: "A saved link or note from PRSNL. Body of prsnl.item."))
}
