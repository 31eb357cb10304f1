import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// What a connection does with the request parts it reads, and whether it reads on: the
/// decisions of `RequestDispatchHandler`, without a channel.
///
/// A connection has no task while it waits for a request (it is *parked*): its first head
/// starts one (`start`), its body parts go to that request's body, and the parts of a request
/// pipelined behind it wait in `queued` until it is answered. A request whose handler leaves
/// part of its body has the rest dropped (`skipping`) before the next is started, as in
/// Hummingbird's connection loop.
struct RequestDispatch {
    enum State: Equatable {
        /// No request: the connection waits for a head, with no task.
        case parked
        /// A request is answered; whether its body has come to its end.
        case answering(bodyEnded: Bool)
        /// The request was answered before its body's end: the rest is read and dropped.
        case skipping
        /// The connection ended (or must): nothing more is started.
        case closed
    }

    enum Action: Equatable {
        /// Start a request's task.
        case start(HTTPRequest)
        /// Give a part of the current request's body to it.
        case yield(ByteBuffer)
        /// The current request's body has come to its end.
        case finishBody
        /// The connection cannot go on (a part where it cannot come, a request that asked to
        /// close, a parser error): end the current body with an error, close the channel.
        case close
    }

    /// Parts of requests pipelined behind the one answered, read before its answer: at most
    /// this many are read ahead (a read that decodes more is kept whole), then reading pauses.
    static let readAhead = 16

    private(set) var state = State.parked
    /// (Made with room for one part: SwiftNIO's default of 16 would keep 0.4 KB on every
    /// connection, idle or not, for what only a pipelining client fills.)
    private(set) var queued = CircularBuffer<HTTPRequestPart>(initialCapacity: 1)
    /// The client has finished sending (it half-closed): what it sent is answered, then the
    /// connection is closed.
    private(set) var inputEnded = false
    /// Whether the current request's body takes more (its reader has not fallen behind).
    private(set) var bodyWantsMore = true

    /// Whether the connection should read now. It reads while parked (so a request, or the
    /// client's close, is seen at once), while answering unless the body's reader is behind
    /// or `readAhead` parts of later requests wait, and while skipping a body.
    var reads: Bool {
        switch state {
        case .parked, .skipping: true
        case .answering(let bodyEnded): bodyEnded ? queued.count < Self.readAhead : bodyWantsMore
        case .closed: false
        }
    }

    mutating func read(_ part: HTTPRequestPart) -> [Action] {
        switch (state, part) {
        case (.closed, _):
            return []
        case (.parked, .head(let head)):
            state = .answering(bodyEnded: false)
            bodyWantsMore = true
            return [.start(head)]
        case (.answering(bodyEnded: false), .body(let buffer)):
            return [.yield(buffer)]
        case (.answering(bodyEnded: false), .end):
            state = .answering(bodyEnded: true)
            return [.finishBody]
        case (.answering(bodyEnded: true), _):
            queued.append(part)
            return []
        case (.skipping, .body):
            return []
        case (.skipping, .end):
            state = .parked
            return endedInput()
        case (.parked, .body), (.parked, .end), (.answering(bodyEnded: false), .head), (.skipping, .head):
            // SwiftNIO's decoder never gives these.
            state = .closed
            return [.close]
        }
    }

    /// The current request's reader wants more (true) or has enough for now (false).
    mutating func bodyDemand(_ wantsMore: Bool) {
        bodyWantsMore = wantsMore
    }

    /// The current request was answered; `goesOn` false when it asked for the connection to
    /// close (or its answer could not be written). Starts the next queued request, if any.
    mutating func answered(goesOn: Bool) -> [Action] {
        guard case .answering(let bodyEnded) = state else { return [] }
        guard goesOn else {
            state = .closed
            queued.removeAll()
            return [.close]
        }
        guard bodyEnded else {
            state = .skipping
            bodyWantsMore = true
            return [.finishBody]
        }
        state = .parked
        guard !queued.isEmpty else { return endedInput() }
        var actions: [Action] = []
        while let part = queued.first {
            if case .head = part, !actions.isEmpty { break }
            queued.removeFirst()
            actions += read(part)
        }
        return actions
    }

    /// The client finished sending (SwiftNIO's `inputClosed`): a connection with nothing to
    /// answer closes now, one answering closes once it has answered what was sent. A request
    /// whose body the client stopped sending within cannot be answered: it closes now.
    mutating func inputClosed() -> [Action] {
        inputEnded = true
        switch state {
        case .parked: return endedInput()
        case .answering(bodyEnded: true), .closed: return []
        case .answering(bodyEnded: false), .skipping: return failed()
        }
    }

    private mutating func endedInput() -> [Action] {
        guard inputEnded, state == .parked, queued.isEmpty else { return [] }
        state = .closed
        return [.close]
    }

    /// The channel's pipeline reported an error (a body the parser failed in): the request's
    /// body ends in it and the connection closes.
    mutating func failed() -> [Action] {
        guard state != .closed else { return [] }
        state = .closed
        queued.removeAll()
        return [.close]
    }

    /// The connection ended: nothing more is started.
    mutating func ended() {
        state = .closed
        queued.removeAll()
    }
}
