import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import Model
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

extension GatewayHTTP1Channel {
    /// Nothing: a connection needs no task of its own. Its requests are started by its last
    /// handler (`RequestDispatchHandler`), each in a task that ends with its answer, so an idle
    /// keep-alive connection holds no task and no async stack. Swift keeps a task's stack at the
    /// deepest it ever went, in slabs of about 1 KB given back only when the task ends; a task
    /// per connection, waiting for the next head, cost about 4.3 KB of them on every idle
    /// connection (`make bench` row 5, BENCHMARKS.md). The server's graceful shutdown waits for
    /// the connections themselves (they close once idle); a cancelled server closes them
    /// (`ConnectionBudget.closeAll`, `OpenConnectionsCloser`).
    func handle(value: Value, logger: Logger) async {}

    /// Answers one request in its own task: Hummingbird's responder (the router, its middleware
    /// and handlers), the `Date` and `Server` headers, the answer written. Whether the
    /// connection goes on: not after a request that asked to close, nor when the request's body
    /// could not be read (the parser failed in it) or the answer could not be written.
    static func answer(
        _ head: HTTPRequest, body: RequestBody, channel: any Channel, respond: @escaping Respond, serverName: String
    ) async -> Bool {
        var response: Response
        do {
            response = try await respond(Request(head: head, body: body), channel)
        } catch is HTTPParserError {
            return false
        } catch {
            response = JSONResponse.make(
                status: .internalServerError,
                body: GatewayError.body(
                    ErrorDetail(code: "internal", message: "the gateway failed to answer; see its log")),
                headers: [.cacheControl: "no-store"])
        }
        response.headers[.date] = Self.dates.header(second: Int64(Date().timeIntervalSince1970))
        response.headers[.server] = serverName
        do {
            try await ChannelResponseWriter.write(response, to: channel)
        } catch {
            return false
        }
        return head.headerFields[.connection]?.lowercased() != "close"
    }

    /// The `Date` header of the router's answers, made once a second.
    static let dates = HTTPDate()
}
