import Foundation
import Model

/// Adding a task to the Tickedify inbox (`POST /api/taak/add-to-inbox {"tekst"}`). The real
/// server reads the whole inbox and rewrites it on each add, so concurrent adds lose tasks:
/// adds are serialised per account with every other Tickedify write
/// (`TickedifyClient.serialised`). Without a session the server answers
/// 500 "Niet ingelogd" instead of 401, so the session is verified first. Never retried.
public enum TickedifyInbox {
    public static let maximumTitleLength = 500

    /// The title as it is sent: trimmed, 1 to 500 characters, no control characters; else a 400
    /// that says which.
    public static func checkedTitle(_ title: String) throws(WriteRefusal) -> String {
        let text = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= maximumTitleLength else {
            throw .badInput("title must be 1 to \(maximumTitleLength) characters")
        }
        if let refusal = WriteRefusal.controlCharacter(in: text, field: "title") { throw refusal }
        return text
    }

    /// Returns the new task's id.
    public static func add(title: String, context: OperationContext) async throws -> String {
        let text = try checkedTitle(title)
        let client = try TickedifyClient.make(context)
        let value = try await client.serialised {
            try await client.post("/api/taak/add-to-inbox", body: JSONCoding.encode(["tekst": text]))
        }
        return try taskID(value)
    }

    /// The new task's id in Tickedify's answer to the add.
    static func taskID(_ value: JSONValue) throws -> String {
        guard let id = value["taskId"]?.stringValue ?? value["id"]?.stringValue else {
            throw BackendError(
                .badResponse, backend: TickedifyClient.backend,
                message: "Tickedify accepted the task but sent no taskId")
        }
        return id
    }
}
