import Cache
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// `GET /v1/stream`: Server-Sent Events. `hello` on connect, `change` whenever a cached
/// section of the client's profile changes (new data, a failed refresh, an invalidation), and
/// a `heartbeat` every few seconds so proxies keep the connection and clients notice a dead
/// gateway. `retry: 2000` makes browsers reconnect two seconds after a restart. The stream
/// ends when the gateway shuts down (the feed finishes).
///
/// A stream holds a connection of the budget for as long as it lasts (the idle timeout does
/// not end it: an answer is on its way), so each client may hold only `quota.perClient` of
/// them; one more is a `429 too_many_streams`.
struct ChangeStreamHandler: Sendable {
    let feed: CacheChangeFeed
    let heartbeat: Duration
    let quota: StreamQuota

    func response(profile: String, client: String) throws -> Response {
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
            defer { withExtendedLifetime(ticket) {} }
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n" + Self.event("hello", ["profile": profile])))
            let (events, continuation) = AsyncStream<String>.makeStream()
            let forward = Task {
                for await change in changes where change.profile == profile {
                    continuation.yield(
                        Self.event("change", ["kind": change.kind.rawValue, "operation": change.operation]))
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
