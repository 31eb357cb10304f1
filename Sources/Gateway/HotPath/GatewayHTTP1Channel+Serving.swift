import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

extension GatewayHTTP1Channel {
    /// The connection's loop, in place of Hummingbird's `handleHTTP` (which it follows: one
    /// request after another, the rest of a body its handler did not read skipped, the
    /// connection ended after a request that asked for `Connection: close`). The connection's
    /// task only waits for the next request's head; each request — its head, Hummingbird's
    /// responder, the router, its middleware and handlers, the writing of the answer, its body —
    /// is answered in a child task of its own (`answer`).
    ///
    /// Swift keeps a task's async stack at the deepest the task ever went, in slabs of about
    /// 1 KB that are reused and not given back until the task ends, and a connection's task
    /// lives as long as the connection. Run in it, one request through the router left about
    /// 27 KB behind on every idle keep-alive connection; Hummingbird's own loop, with the
    /// request answered in a child task, still kept five slabs and the last request's head
    /// (about 14.6 KB of RSS per idle connection in `make bench` row 5). Here the connection's
    /// task never goes deeper than the wait for a head, and holds no request while it waits.
    /// That wait has no cancellation handler of its own (Hummingbird's wraps the whole loop in
    /// one, a slab of about 1 KB more on every connection): SwiftNIO's stream ends the wait of a
    /// cancelled task and closes the channel; the wait for the client to close, after the loop,
    /// closes the channel itself when cancelled (`aCancelledServerClosesTheKeepAliveConnectionsItsClientsHold`).
    /// A malformed request never reaches it: `ConnectionGuardHandler` answers it.
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        let responder = self.responder
        do {
            try await value.executeThenClose { inbound, outbound in
                let parts = RequestParts(inbound)
                while let head = try await parts.nextHead() {
                    let goesOn = try await Self.answer(
                        head, parts: parts, outbound: outbound, channel: channel, responder: responder)
                    if !goesOn { break }
                }
                // Close the sending side and wait for the client (or a timeout) to close; a
                // cancelled task (the server's group ending without a graceful shutdown) closes it.
                outbound.finish()
                try await withTaskCancellationHandler {
                    try await channel.closeFuture.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            }
        } catch {
            logger.trace("the connection ended", metadata: ["error": "\(error)"])
        }
    }

    /// Answers one request in a child task of the caller's, so that what it allocates on its
    /// async stack is given back when it is answered; whether the connection goes on. (A
    /// streamed answer, `/v1/stream`, runs in its child for as long as it lasts.)
    static func answer(
        _ head: HTTPRequest, parts: RequestParts, outbound: NIOAsyncChannelOutboundWriter<HTTPResponsePart>,
        channel: any Channel, responder: @escaping HTTPChannelHandler.Responder
    ) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await responder(Request(head: head, body: parts.body), ResponseWriter(outbound: outbound), channel)
                if head.headerFields[.connection] == "close" { return false }
                try await parts.skipBody()
                return true
            }
            return try await group.next() ?? false
        }
    }
}
