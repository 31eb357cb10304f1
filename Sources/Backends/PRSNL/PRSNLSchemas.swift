import Model
import OpenAPIKit

/// PRSNL's schemas in /openapi.json: its operations' bodies and its write.
public enum PRSNLSchemas {
    /// A tag and how many items carry it.
    public static let tag = SchemaComponent(
        "Tag",
        schema: .closedObject(
            ["name": .string, "count": .integer], description: "A PRSNL tag and how many items carry it."))

    /// Body of `prsnl.timeline`.
    public static let knowledgeTimeline = SchemaComponent(
        "KnowledgeTimeline", uses: [KnowledgeItem.schemaComponent],
        schema: .array(
            description: "Body of prsnl.timeline: the newest items first.",
            items: KnowledgeItem.schemaComponent.reference))

    /// Body of `prsnl.timeline_cursor`.
    public static let timelineCursor = SchemaComponent(
        "TimelineCursor",
        schema: .string(
            nullable: true,
            description:
                "PRSNL's next_cursor: pass it back as cursor for the items saved before this page; null when this page was the last."
        ))

    /// Body of `prsnl.search`.
    public static let knowledgeSearchResults = SchemaComponent(
        "KnowledgeSearchResults", uses: [KnowledgeItem.schemaComponent],
        schema: .array(
            description: "Body of prsnl.search: the items matching the query.",
            items: KnowledgeItem.schemaComponent.reference))

    /// Body of `prsnl.tags`.
    public static let tagList = SchemaComponent(
        "TagList", uses: [tag], schema: .array(description: "Body of prsnl.tags.", items: tag.reference))

    /// Body of `POST /v1/captures` (`CaptureInput`): a link, a note, or both. JSON Schema cannot
    /// say "one of these two keys" beside `properties` in OpenAPIKit's model, so it is two
    /// closed objects with the same fields, one requiring `url`, one `content`.
    public static let newCapture: SchemaComponent = {
        let properties: [String: JSONSchema] = [
            "url": .text(
                max: CaptureInput.maximumURLLength, format: .uri, description: "An http:// or https:// URL to save."),
            "content": .text(max: CaptureInput.maximumContentLength, description: "The text of a note."),
            "title": .text(max: CaptureInput.maximumTitleLength),
            "tags": .array(
                description: "Sent lower-cased, without repeats.", maxItems: CaptureInput.maximumTags,
                items: .text(min: 1, max: CaptureInput.maximumTagLength)),
            "content_type": .enumeration(
                CaptureInput.contentTypes,
                description: "PRSNL's content type; absent or `auto`: `link` for a URL, `note` for content."),
        ]
        return SchemaComponent(
            "NewCapture",
            schema: .any(
                of: [
                    .closedObject(properties, required: ["url"]), .closedObject(properties, required: ["content"]),
                ],
                core: .init(
                    description:
                        "Body of POST /v1/captures: a link (url) or a note (content), or both; one of them not blank."))
        )
    }()

    /// PRSNL's acknowledgement of a capture.
    public static let capture = SchemaComponent(
        "Capture",
        schema: .object(
            description:
                "PRSNL's acknowledgement of a capture as it sent it (more fields may come from PRSNL), with what was sent beside it.",
            properties: JSONSchema.sortedProperties(
                [
                    "id": .string(description: "PRSNL's id of the new item."),
                    "status": .string(description: "PRSNL's processing status, `pending` at first."),
                    "message": .string(
                        nullable: true, description: "PRSNL's message, e.g. \"Item capture initiated\"."),
                    "duplicate_info": .fragment(description: "PRSNL's duplicate information (null for a new item)."),
                    "url": .string(nullable: true, description: "The URL sent (null for a note)."),
                    "title": .string(nullable: true, description: "The title sent (null when none)."),
                    "content_type": .string(nullable: true, description: "The content type sent."),
                    "tags": .array(description: "The tags sent.", items: .string),
                ], required: ["id", "status", "url", "title", "content_type", "tags"]),
            additionalProperties: .init(true)))

    /// Answer of `POST /v1/captures`.
    public static let captureAccepted = SchemaComponent(
        "CaptureAccepted", uses: [capture],
        schema: .closedObject(["capture": capture.reference], description: "Answer of POST /v1/captures."))
}
