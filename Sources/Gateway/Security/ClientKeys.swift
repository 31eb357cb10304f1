import Crypto
import Foundation
import Model

/// The configured client keys. A presented key is compared with every configured one in
/// constant time (both sides hashed to 32 bytes first, every entry compared, no early exit),
/// so neither timing nor length tells an attacker how close a guess was.
struct ClientKeys: Sendable {
    struct Entry: Sendable {
        var digest: [UInt8]
        var client: ClientConfig
    }

    let entries: [Entry]
    /// The feed keys: each reads only `/v1/calendar.ics`.
    let feedEntries: [Entry]

    init(_ clients: [ClientConfig]) {
        entries = clients.map { Entry(digest: Self.digest($0.key), client: $0) }
        feedEntries = clients.compactMap { client in
            client.feedKey.map { Entry(digest: Self.digest($0), client: client) }
        }
    }

    var isEmpty: Bool { entries.isEmpty }

    /// The client whose key is `presented`, or nil.
    func client(presenting presented: String) -> ClientConfig? {
        Self.match(presented, in: entries)
    }

    /// The client whose feed key is `presented`, or nil.
    func client(presentingFeedKey presented: String) -> ClientConfig? {
        Self.match(presented, in: feedEntries)
    }

    private static func match(_ presented: String, in entries: [Entry]) -> ClientConfig? {
        let digest = Self.digest(presented)
        var match: ClientConfig?
        for entry in entries {
            var difference: UInt8 = 0
            for index in 0..<32 {
                difference |= entry.digest[index] ^ digest[index]
            }
            if difference == 0 { match = entry.client }
        }
        return match
    }

    /// The key of an `Authorization: Bearer <key>` header value, or nil.
    static func bearerKey(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    private static func digest(_ key: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(key.utf8)))
    }
}
