import Aggregation
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
    ///   - members: for `/v1/household/stream`, each household member by profile: the
    ///     changes of every member's profile, each event naming its `member`, without the
    ///     operations only the member's unshared sections use (`HouseholdStreamMember`); nil:
    ///     the client's own profile's changes.
    func response(
        profile: String, client: String, clientName: String?, members: [String: HouseholdStreamMember]? = nil
    ) throws -> Response {
        // Bounded: a client that does not read its events is dropped (it reconnects), never
        // buffered for. The connection's send limit ends a write it does not take.
        let (events, continuation) = AsyncStream<String>.makeStream(
            bufferingPolicy: .bufferingOldest(Self.bufferedEvents))
        let credential = StreamCredential(
            key: clientName.flatMap { keys[$0] }, profile: profile, household: members != nil)
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
                        guard let member = members[change.profile], member.sees(change.operation) else { continue }
                        data["member"] = member.id
                    } else if change.profile != profile {
                        continue
                    }
                    if case .dropped = continuation.yield(Self.event("change", data)) { break }
                }
                continuation.finish()
            }
            let beat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    guard !Task.isCancelled else { break }
                    if case .dropped = continuation.yield(
                        Self.event("heartbeat", ["time": LenientDate.format(Date(), in: .gmt)]))
                    {
                        continuation.finish()
                        break
                    }
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

    /// Events kept for a client that has not taken them yet; one more ends its stream.
    static let bufferedEvents = 64

    static func event(_ name: String, _ data: [String: String]) -> String {
        let json = (try? JSONCoding.encode(data)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        return "event: \(name)\ndata: \(json)\n\n"
    }
}

/// A household member as `/v1/household/stream` tells of them: their id, and the operations
/// the household answers use only in sections they do not share (`share:`): a change of one
/// of those (a meal logged) is not told, as it is not shown.
struct HouseholdStreamMember: Sendable, Equatable {
    var id: String
    var hidden: Set<String>

    func sees(_ operation: String) -> Bool { !hidden.contains(operation) }

    /// Each member by profile, from the household routes and the household summary: an
    /// operation is hidden from a member when every section using it is `opt_in` and not
    /// shared by them.
    static func members(of household: HouseholdConfig, routes: [Route]) -> [String: HouseholdStreamMember] {
        var result: [String: HouseholdStreamMember] = [:]
        let sections = routes.flatMap(\.sections)
        for member in household.members where result[member.profile] == nil {
            let shown = sections.filter { !$0.optIn || member.share.contains($0.name) }
            let unshared = sections.filter { $0.optIn && !member.share.contains($0.name) }
            let hidden = Set(unshared.map(\.operation.name)).subtracting(shown.map(\.operation.name))
            result[member.profile] = HouseholdStreamMember(id: member.id, hidden: hidden)
        }
        return result
    }
}
