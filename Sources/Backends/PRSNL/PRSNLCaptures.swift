import Foundation
import Model

/// What a client may send to capture a link or a note in PRSNL (`POST /api/capture`,
/// docs/backends/prsnl.md).
public struct CaptureInput: Sendable, Codable, Equatable {
    public static let maximumURLLength = 2048
    public static let maximumContentLength = 50_000
    public static let maximumTitleLength = 500
    public static let maximumTags = 20
    public static let maximumTagLength = 50
    /// PRSNL's accepted `content_type` values (anything else is its 400). `auto` is accepted
    /// from a client but never sent: it is what triggers PRSNL's capture bug.
    public static let contentTypes = [
        "article", "video", "document", "image", "note", "link", "tutorial", "audio", "code", "development",
        "github_repo",
        "github_document", "auto",
    ]

    /// An http(s) URL to save; `url` or `content` is required.
    public var url: String?
    /// A note's text, at most 50 000 characters.
    public var content: String?
    /// At most 500 characters.
    public var title: String?
    /// At most 20, each at most 50 characters; sent lower-cased and de-duplicated.
    public var tags: [String]?
    /// One of ``contentTypes``; nil or `auto` = `link` for a URL, `note` for content.
    public var contentType: String?

    public init(
        url: String? = nil, content: String? = nil, title: String? = nil, tags: [String]? = nil,
        contentType: String? = nil
    ) {
        self.url = url
        self.content = content
        self.title = title
        self.tags = tags
        self.contentType = contentType
    }

    enum CodingKeys: String, CodingKey {
        case url, content, title, tags
        case contentType = "content_type"
    }

    /// Checks every field; the first problem is a 400 naming the field.
    public func validate() throws(WriteRefusal) {
        if let url = normalisedURL {
            guard url.count <= Self.maximumURLLength,
                !url.unicodeScalars.contains(where: {
                    $0.properties.isWhitespace || $0.properties.generalCategory == .control
                }),
                let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
                scheme == "http" || scheme == "https",
                let host = parsed.host, !host.isEmpty
            else {
                throw .badInput("url must be an http:// or https:// URL of at most \(Self.maximumURLLength) characters")
            }
        }
        if let content {
            guard content.count <= Self.maximumContentLength else {
                throw .badInput("content must be at most \(Self.maximumContentLength) characters")
            }
        }
        guard normalisedURL != nil || normalisedContent != nil else {
            throw .badInput("url or content is required")
        }
        if let title {
            guard title.count <= Self.maximumTitleLength else {
                throw .badInput("title must be at most \(Self.maximumTitleLength) characters")
            }
            if let refusal = WriteRefusal.controlCharacter(in: title, field: "title") { throw refusal }
        }
        if let tags {
            guard tags.count <= Self.maximumTags else { throw .badInput("tags must be at most \(Self.maximumTags)") }
            for tag in tags {
                let trimmed = tag.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, trimmed.count <= Self.maximumTagLength else {
                    throw .badInput("each tag must be 1 to \(Self.maximumTagLength) characters")
                }
                if let refusal = WriteRefusal.controlCharacter(in: trimmed, field: "each tag") { throw refusal }
            }
        }
        if let contentType, !Self.contentTypes.contains(contentType) {
            throw .badInput("content_type must be one of \(Self.contentTypes.joined(separator: ", "))")
        }
    }

    /// The URL, trimmed; nil when absent or blank.
    var normalisedURL: String? {
        url.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The content when it has any text.
    var normalisedContent: String? {
        content.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
    }

    /// Always explicit: PRSNL fails with a 500 on a URL capture whose `content_type` is absent
    /// or `auto` (it reads `metadata` before assigning it).
    var effectiveContentType: String {
        if let contentType, contentType != "auto", Self.contentTypes.contains(contentType) { return contentType }
        return normalisedURL != nil ? "link" : "note"
    }

    /// Trimmed, lower-cased, without repeats, in the order given.
    var normalisedTags: [String] {
        var seen: [String] = []
        for tag in tags ?? [] {
            let value = tag.trimmingCharacters(in: .whitespaces).lowercased()
            if !value.isEmpty, !seen.contains(value) { seen.append(value) }
        }
        return seen
    }

    var upstreamBody: JSONValue {
        var body: JSONObject = [
            "content_type": .string(effectiveContentType),
            "tags": .array(normalisedTags.map(JSONValue.string)),
        ]
        if let url = normalisedURL { body["url"] = .string(url) }
        if let content = normalisedContent { body["content"] = .string(content) }
        if let title = title?.trimmingCharacters(in: .whitespacesAndNewlines), !title.isEmpty {
            body["title"] = .string(title)
        }
        return .object(body)
    }
}

/// Capturing a link or a note in PRSNL: `POST /api/capture` with the Bearer token (a 401
/// refreshes it and sends again: nothing was written), always with an explicit `content_type`,
/// tags lower-cased and de-duplicated. Sent once otherwise: a timeout or a 5xx is not retried —
/// the account's newest items are read back once instead, and a capture that was saved is
/// answered as done (`PRSNLCaptureReadBack`) — and a 429 (30 captures a minute) is a
/// `BackendError` `.rateLimited` carrying `Retry-After`.
public enum PRSNLCaptures {
    /// Returns PRSNL's answer (`id`, `status` "pending", `message`, `duplicate_info`) with what was
    /// sent beside it: `url`, `title`, `content_type` and `tags` (when the answer lacks them).
    public static func capture(_ input: CaptureInput, context: OperationContext) async throws -> JSONValue {
        try input.validate()
        let client = try PRSNLClient.make(context)
        let body = input.upstreamBody
        let sentAt = Date()
        let value: JSONValue
        do {
            value = try await client.request(
                "/api/capture", method: .POST, body: try JSONCoding.encode(body), limited: .capture)
        } catch  where BackendError.mayHaveBeenDone(error) {
            guard let row = await PRSNLCaptureReadBack.find(body, sentAt: sentAt, client: client),
                let id = row["id"]
            else { throw error }
            context.logger.warning(
                "PRSNL did not confirm the capture, but its timeline shows it saved: answered as done",
                metadata: ["backend": "prsnl"])
            value = .object([
                "id": id, "status": row["status"] ?? .string("pending"), "message": .string("Item capture initiated"),
                "duplicate_info": .null,
            ])
        }
        let captured = try answer(value, sent: body)
        if let text = body["content"]?.stringValue, let id = captured["id"]?.stringValue {
            await keep(text, item: id, context: context)
        }
        return captured
    }

    /// Keeps the captured text (`PRSNLCapturedNotes`), so the item shows it; the capture is made
    /// whether or not this succeeds (a full disk is logged, not the write's failure).
    static func keep(_ text: String, item id: String, context: OperationContext) async {
        guard let settings = context.profile.prsnl else { return }
        do {
            try await PRSNLCapturedNotes.shared(context, scope: PRSNLClient.scope(settings)).remember(text, item: id)
        } catch {
            context.logger.warning(
                "the captured text could not be kept; the item shows PRSNL's content only",
                metadata: ["backend": "prsnl", "error": "\(type(of: error))"])
        }
    }

    /// PRSNL's answer to the capture, with what was `sent` beside it where the answer lacks it.
    static func answer(_ value: JSONValue, sent body: JSONValue) throws -> JSONValue {
        var answer = value.objectValue ?? [:]
        guard answer["id"]?.stringValue != nil else {
            throw BackendError(
                .badResponse, backend: PRSNLClient.backend, message: "PRSNL accepted the capture but sent no id")
        }
        for key in ["url", "title", "content_type", "tags"] where answer[key] == nil {
            answer[key] = body[key] ?? .null
        }
        return .object(answer)
    }
}
