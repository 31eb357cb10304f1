import Cache
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// `GET /v1/stream`: Server-Sent Events. `hello` on connect, `change` whenever a cached
/// section of the client's profile changes (new data, a failed refresh, an invalidation) —
/// on `/v1/household/stream` of any household member's profile, naming the `member` — and
/// a `heartbeat` every few seconds so proxies keep the connection and clients notice a dead
/// gateway. `retry: 2000` makes browsers reconnect two seconds after a restart. The stream
/// ends when the gateway shuts down (the feed finishes).
///
/// A stream holds a connection of the budget for as long as it lasts (the idle timeout does
/// not end it: an answer is on its way), so each client may hold only `quota.perClient` of
/// them; one more is a `429 too_many_streams`.
///
/// The profile is bound when the stream opens, so a reload that removes the client's key or
/// maps it to another profile ends the stream (`OpenStreams`): an `end` event, then the end of
/// the answer. The client reconnects and is asked for its key again.
struct ChangeStreamHandler: Sendable {
    let feed: CacheChangeFeed
    let heartbeat: Duration
    let quota: StreamQuota
    let streams: OpenStreams
    /// Each client's key by name, as this runtime's config has them.
    let keys: [String: String]

    init(feed: CacheChangeFeed, heartbeat: Duration, quota: StreamQuota, streams: OpenStreams, clients: [ClientConfig])
    {
        self.feed = feed
        self.heartbeat = heartbeat
        self.quota = quota
        self.streams = streams
        self.keys = Dictionary(clients.map { ($0.name, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    /// - Parameters:
    ///   - client: who holds the stream for the quota (`GatewayRequestContext.clientIdentity`).
    ///   - clientName: the name of the key that opened it (nil without keys).
    ///   - members: for `/v1/household/stream`, each household member's profile and id: the
    ///     changes of every member's profile, each event naming its `member`; nil: the
    ///     client's own profile's changes.
    func response(profile: String, client: String, clientName: String?, members: [String: String]? = nil) throws
        -> Response
    {
        let (events, continuation) = AsyncStream<String>.makeStream()
        let credential = StreamCredential(key: clientName.flatMap { keys[$0] }, profile: profile)
        guard
            let registration = streams.open(
                credential,
                end: {
                    continuation.yield(
                        Self.event("end", ["reason": "this client's key was removed or changed by a config reload"]))
                    continuation.finish()
                })
        else {
            throw GatewayError(
                .unauthorized, code: "unauthorized", message: "this client key is no longer in the config",
                headers: [.wwwAuthenticate: #"Bearer realm="daygate""#])
        }
        guard let ticket = quota.take(for: client) else {
            throw GatewayError(
                .tooManyRequests, code: "too_many_streams",
                message:
                    "this client has \(quota.perClient) streams open already (limits.streams_per_client); close one first",
                headers: [.retryAfter: "10"]
            )
        }
        let changes = feed.subscribe()
        let heartbeat = self.heartbeat
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let body = ResponseBody { writer in
            defer { withExtendedLifetime((ticket, registration)) {} }
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n" + Self.event("hello", ["profile": profile])))
            let forward = Task {
                for await change in changes {
                    var data = ["kind": change.kind.rawValue, "operation": change.operation]
                    if let members {
                        guard let member = members[change.profile] else { continue }
                        data["member"] = member
                    } else if change.profile != profile {
                        continue
                    }
                    continuation.yield(Self.event("change", data))
                }
                continuation.finish()
            }
            let beat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    guard !Task.isCancelled else { break }
                    continuation.yield(Self.event("heartbeat", ["time": LenientDate.format(Date(), in: .gmt)]))
                }
            }
            defer {
                forward.cancel()
                beat.cancel()
            }
            for await event in events {
                try await writer.write(ByteBuffer(string: event))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    static func event(_ name: String, _ data: [String: String]) -> String {
        let json = (try? JSONCoding.encode(data)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        return "event: \(name)\ndata: \(json)\n\n"
    }
}
