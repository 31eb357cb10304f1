import Foundation

/// One source's circuit, as a pure state machine: closed until `failureThreshold` calls in a
/// row fail (no answer, or a 5xx); then open, refusing calls without sending them, for
/// `openFor` (doubling on each re-opening, up to `maximumOpenFor`); then half-open, letting
/// exactly one probe through: its success closes the circuit, its failure opens it again.
public struct CircuitBreaker: Sendable, Equatable {
    public struct Policy: Sendable, Equatable {
        public var failureThreshold: Int
        public var openFor: TimeInterval
        public var maximumOpenFor: TimeInterval

        public init(failureThreshold: Int = 5, openFor: TimeInterval = 30, maximumOpenFor: TimeInterval = 300) {
            self.failureThreshold = max(1, failureThreshold)
            self.openFor = openFor
            self.maximumOpenFor = max(openFor, maximumOpenFor)
        }

        public static let standard = Policy()
    }

    public enum State: Sendable, Equatable {
        case closed(consecutiveFailures: Int)
        case open(until: Date)
        /// The open period is over; `probing` while the one trial call is out.
        case halfOpen(probing: Bool)
    }

    /// What `admit` decided for one call.
    public enum Admission: Sendable, Equatable {
        case allowed
        /// The one trial call of a half-open circuit.
        case probe
        case rejected(retryAt: Date)
    }

    /// The names /v1/sources and /metrics use.
    public enum Phase: String, Sendable, Codable {
        case closed
        case open
        case halfOpen = "half_open"
    }

    public private(set) var state: State = .closed(consecutiveFailures: 0)
    /// How many times in a row the circuit has opened without a success in between.
    public private(set) var openings = 0
    public let policy: Policy

    public init(policy: Policy = .standard) {
        self.policy = policy
    }

    public func phase(at now: Date) -> Phase {
        switch state {
        case .closed: .closed
        case .open(let until): now >= until ? .halfOpen : .open
        case .halfOpen: .halfOpen
        }
    }

    public var openUntil: Date? {
        if case .open(let until) = state { return until }
        return nil
    }

    public mutating func admit(now: Date) -> Admission {
        switch state {
        case .closed:
            return .allowed
        case .open(let until):
            guard now >= until else { return .rejected(retryAt: until) }
            state = .halfOpen(probing: true)
            return .probe
        case .halfOpen(let probing):
            if probing { return .rejected(retryAt: now.addingTimeInterval(1)) }
            state = .halfOpen(probing: true)
            return .probe
        }
    }

    /// The backend answered (any status below 500 but 429): the circuit closes.
    public mutating func succeeded() {
        state = .closed(consecutiveFailures: 0)
        openings = 0
    }

    /// No answer, or a 5xx.
    public mutating func failed(now: Date) {
        switch state {
        case .closed(let failures):
            if failures + 1 >= policy.failureThreshold {
                open(now: now)
            } else {
                state = .closed(consecutiveFailures: failures + 1)
            }
        case .halfOpen, .open:
            open(now: now)
        }
    }

    /// A call that was admitted but ended without telling anything about the backend
    /// (cancelled): a probe slot is given back.
    public mutating func abandoned() {
        if case .halfOpen(true) = state { state = .halfOpen(probing: false) }
    }

    private mutating func open(now: Date) {
        let period = min(policy.maximumOpenFor, policy.openFor * pow(2, Double(openings)))
        openings += 1
        state = .open(until: now.addingTimeInterval(period))
    }
}
