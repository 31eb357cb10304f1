import NIOCore

/// Which answers on a connection must go without their body: those to `HEAD` requests (RFC 9110
/// §9.3.2), in the order the requests came, as SwiftNIO's response encoder would do when paired
/// with the decoder (it is not: the hot path writes past the encoder). Answers come in request
/// order on HTTP/1, so a queue of "was it a HEAD" per request decides: each answer takes the
/// oldest — the router's when it writes a response head, the hot path's when it has written
/// its own (those are framed already).
struct ResponseFraming {
    /// The oldest request still waiting for its answer (inline: one at a time is the rule).
    private var first: Bool?
    /// Further requests, under pipelining.
    private var more: CircularBuffer<Bool>?
    /// The answer being written is to a `HEAD`: its body parts are dropped.
    private(set) var droppingBody = false
    /// An answer's head is written and its end is not yet.
    private(set) var answering = false

    mutating func requestRead(isHead: Bool) {
        if first == nil {
            first = isHead
        } else {
            if more == nil { more = CircularBuffer(initialCapacity: 4) }
            more!.append(isHead)
        }
    }

    /// An answer's head is written: from now its body is dropped if it answers a `HEAD`.
    mutating func answerBegins() {
        droppingBody = takeOldest() ?? false
        answering = true
    }

    /// An answer is written to its end.
    mutating func answerEnds() {
        droppingBody = false
        answering = false
    }

    /// An answer was written whole elsewhere (the hot path, framed already).
    mutating func answeredElsewhere() {
        _ = takeOldest()
    }

    private mutating func takeOldest() -> Bool? {
        guard let oldest = first else { return nil }
        first = more?.popFirst()
        return oldest
    }
}
