import Foundation
import Model

/// Whether a capture PRSNL did not confirm was saved all the same, found by reading the account's
/// newest timeline page once.
///
/// PRSNL's capture inserts the item before later steps that can fail with a 500 (it runs no
/// transaction around them), a proxy can answer 502/504 after PRSNL saved, and a timeout leaves
/// no answer at all. Then the gateway reads the account's newest ``pageSize`` timeline items
/// (with the token check beside the read) and looks for the capture it sent: for a link the same
/// URL, for a note the same title (PRSNL's "Untitled" when none was sent), the same tags, created
/// no earlier than the moment it was sent (less ``clockSlack`` for PRSNL's clock); the newest
/// such. Found: the capture is answered as the success it was. Not found (or the read fails): the
/// original failure stands and the outcome stays unknown. A note with the same title and tags
/// captured elsewhere in those same seconds would be taken for it: the timeline does not show a
/// note's text. Pure apart from ``find(_:sentAt:client:)``: tested without sockets.
enum PRSNLCaptureReadBack {
    static let clockSlack: TimeInterval = 60
    static let pageSize = 20

    /// The timeline row (camelCase, newest first) that is the capture `body` sent at `sentAt`.
    static func match(_ rows: [JSONValue], sent body: JSONValue, sentAt: Date) -> JSONValue? {
        let url = body["url"]?.stringValue
        let title = body["title"]?.stringValue ?? "Untitled"
        let tags = Set((body["tags"]?.arrayValue ?? []).compactMap(\.stringValue))
        return rows.first { row in
            guard let fields = LenientFields(row),
                let created = fields.string("createdAt", "created_at").flatMap({ LenientDate.parse($0) }),
                created >= sentAt.addingTimeInterval(-clockSlack),
                Set(fields.strings("tags") ?? []) == tags
            else { return false }
            if let url { return fields.string("url") == url }
            return fields.string("url") == nil && fields.string("title") == title
        }
    }

    /// Reads the account's newest items and returns the capture's, if saved.
    static func find(_ body: JSONValue, sentAt: Date, client: PRSNLClient) async -> JSONValue? {
        guard
            let page = try? await client.request(
                "/api/timeline", query: [("limit", String(pageSize))], verifyFirst: true)
        else { return nil }
        return match(LenientList.items(in: page, keys: ["items", "data"]) ?? [], sent: body, sentAt: sentAt)
    }
}
