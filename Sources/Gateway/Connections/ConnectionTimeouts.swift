import NIOCore

/// When a client connection has waited too long for its client, as a pure state machine: the
/// connection's events in (`ConnectionGuardHandler` feeds them), the time it may still wait
/// and the reason to close it out. Three limits, as nginx's `client_header_timeout`,
/// `client_body_timeout` and `keepalive_timeout`:
///
/// - **head**: from the connection's start, or from the first bytes of a later request, until
///   that request's head is complete;
/// - **body**: from a request's head until its end;
/// - **idle**: from the last answer written until the next request's first bytes.
///
/// While an answer is being written (the router working, a `/v1/stream` that never ends) no
/// limit runs: the client has done its part — unless the client stops reading it. A fourth
/// limit, as nginx's `send_timeout`:
///
/// - **send**: while the connection cannot take more of an answer (its outbound buffer is past
///   the high-water mark: the client is not reading), for at most `Settings.send`; then it is
///   closed, and whatever waited to write to it (a stream's events) ends with it.
///
/// Under pressure (the connection budget is full) the head and idle limits shrink to
/// `Settings.underPressure`, so connections that hold a slot without using it make room first;
/// a request already answered (refused before its body ended: the rest of its body is only read
/// to keep the connection) gives its slot up at once then.
///
/// "First bytes of a request" is seen as a read that brought neither a head nor a request's
/// end (`bytesRead`): bytes of a next request that arrive in the same read as the end of the
/// one before are only noticed with the next read, so such a request waits at most the idle
/// limit instead of the head limit. Times come from the end of each read, so a request read
/// at once costs one reading of the clock.
struct ConnectionTimeouts {
    struct Settings: Equatable {
        var head: TimeAmount
        var body: TimeAmount
        var idle: TimeAmount
        var send: TimeAmount = .seconds(30)
        var underPressure: TimeAmount = .seconds(1)
    }

    enum Reason: String, Equatable, CaseIterable {
        case headTimeout = "header_timeout"
        case bodyTimeout = "body_timeout"
        case idleTimeout = "idle_timeout"
        /// The client did not read the answer: the connection could not take more for too long.
        case sendTimeout = "send_timeout"
        /// Idle or sending a head slowly while the connection budget was full.
        case shed
    }

    enum Reading: Equatable {
        /// No byte of a next request seen since the last request's end.
        case waiting
        case head(since: NIODeadline)
        /// Since the end of the read that brought the head (nil until that read ends).
        case body(since: NIODeadline?)
    }

    enum Action: Equatable {
        /// Check again at this time (`timerFired`).
        case wakeAt(NIODeadline)
        /// Close the connection.
        case close(Reason)
    }

    let settings: Settings
    private(set) var reading: Reading
    /// Requests read to their end whose answer is not written yet.
    private(set) var pending = 0
    /// When the last answer was written: the idle limit runs from then (it is written after the
    /// request's end, so it is also the later of the two).
    private var answeredAt: NIODeadline
    private(set) var underPressure = false
    /// Whether the read going on has brought a request's head or end so far.
    private var readBroughtRequest = false
    /// Since when the connection cannot take more of an answer (nil: it can).
    private(set) var stalledSince: NIODeadline?
    /// The request whose body is being read was answered already.
    private var answeredBeforeBodyEnded = false

    /// A connection that has just started: its first head must be complete within the head limit.
    init(settings: Settings, now: NIODeadline) {
        self.settings = settings
        self.reading = .head(since: now)
        self.answeredAt = now
    }

    mutating func headRead() {
        reading = .body(since: nil)
        readBroughtRequest = true
        answeredBeforeBodyEnded = false
    }

    mutating func requestEnded() {
        answeredBeforeBodyEnded = false
        reading = .waiting
        pending += 1
        readBroughtRequest = true
    }

    mutating func answerWritten(now: NIODeadline) {
        if case .body = reading, pending == 0 { answeredBeforeBodyEnded = true }
        pending = max(0, pending - 1)
        if pending == 0 { answeredAt = now }
    }

    /// The connection can take more of an answer (true) or not (false: the client is not
    /// reading what was written).
    mutating func writabilityChanged(_ writable: Bool, now: NIODeadline) {
        if writable {
            stalledSince = nil
        } else if stalledSince == nil {
            stalledSince = now
        }
    }

    /// A read ended (`channelReadComplete`). One that brought neither a head nor a request's end
    /// while waiting for the next request brought the first bytes of its head.
    mutating func bytesRead(now: NIODeadline) {
        switch reading {
        case .waiting where !readBroughtRequest: reading = .head(since: now)
        case .body(since: nil): reading = .body(since: now)
        default: break
        }
        readBroughtRequest = false
    }

    mutating func pressureChanged(_ pressure: Bool) {
        underPressure = pressure
    }

    /// When the connection has waited too long, and why; nil while an answer is on its way and
    /// the client takes it.
    var deadline: (at: NIODeadline, reason: Reason)? {
        let reading = readingDeadline
        guard let stalledSince else { return reading }
        let sending = (at: stalledSince + settings.send, reason: Reason.sendTimeout)
        guard let reading, reading.at < sending.at else { return sending }
        return reading
    }

    private var readingDeadline: (at: NIODeadline, reason: Reason)? {
        switch reading {
        case .body(let since):
            guard answeredBeforeBodyEnded else { return since.map { ($0 + settings.body, .bodyTimeout) } }
            // Answered already: the rest of its body is read only to keep the connection, which
            // is not worth a slot when the budget is full — it goes at once then.
            guard let since else { return nil }
            return underPressure ? (since, .shed) : (since + settings.body, .bodyTimeout)
        case .head(let since):
            return limited(since, settings.head, .headTimeout)
        case .waiting:
            guard pending == 0 else { return nil }
            return limited(answeredAt, settings.idle, .idleTimeout)
        }
    }

    private func limited(_ since: NIODeadline, _ limit: TimeAmount, _ reason: Reason) -> (
        at: NIODeadline, reason: Reason
    ) {
        guard underPressure, settings.underPressure < limit else { return (since + limit, reason) }
        return (since + settings.underPressure, .shed)
    }

    /// The timer went off: close, or the time to check again (while an answer is on its way,
    /// after one idle limit — it cannot end sooner than the answer).
    func timerFired(now: NIODeadline) -> Action {
        guard let deadline else { return .wakeAt(now + settings.idle) }
        return deadline.at <= now ? .close(deadline.reason) : .wakeAt(deadline.at)
    }
}
