import Backends
import Foundation
import Testing

@Suite("Circuit breaker")
struct CircuitBreakerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func opensAfterTheThresholdAndRefusesUntilTheOpenPeriodEnds() {
        var breaker = CircuitBreaker(policy: .init(failureThreshold: 5, openFor: 30, maximumOpenFor: 300))
        for _ in 0..<4 {
            #expect(breaker.admit(now: start) == .allowed)
            breaker.failed(now: start)
        }
        #expect(breaker.phase(at: start) == .closed)
        breaker.failed(now: start)
        #expect(breaker.phase(at: start) == .open)
        #expect(breaker.admit(now: start.addingTimeInterval(29)) == .rejected(retryAt: start.addingTimeInterval(30)))
        #expect(breaker.phase(at: start.addingTimeInterval(30)) == .halfOpen)
    }

    @Test func aSuccessInBetweenResetsTheCount() {
        var breaker = CircuitBreaker(policy: .init(failureThreshold: 3))
        breaker.failed(now: start)
        breaker.failed(now: start)
        breaker.succeeded()
        breaker.failed(now: start)
        breaker.failed(now: start)
        #expect(breaker.phase(at: start) == .closed)
    }

    @Test func halfOpenLetsExactlyOneProbeThrough() {
        var breaker = CircuitBreaker(policy: .init(failureThreshold: 1, openFor: 10))
        breaker.failed(now: start)
        let later = start.addingTimeInterval(10)
        #expect(breaker.admit(now: later) == .probe)
        if case .rejected = breaker.admit(now: later) {
        } else {
            Issue.record("a second call during the probe must be refused")
        }
        breaker.succeeded()
        #expect(breaker.phase(at: later) == .closed)
        #expect(breaker.admit(now: later) == .allowed)
    }

    @Test func aFailedProbeReopensForTwiceAsLongUpToTheMaximum() {
        var breaker = CircuitBreaker(policy: .init(failureThreshold: 1, openFor: 10, maximumOpenFor: 35))
        var now = start
        breaker.failed(now: now)
        #expect(breaker.openUntil == now.addingTimeInterval(10))
        for expected in [20.0, 35, 35] {
            now = breaker.openUntil!
            #expect(breaker.admit(now: now) == .probe)
            breaker.failed(now: now)
            #expect(breaker.openUntil == now.addingTimeInterval(expected))
        }
        now = breaker.openUntil!
        #expect(breaker.admit(now: now) == .probe)
        breaker.succeeded()
        breaker.failed(now: now)
        #expect(breaker.openUntil == now.addingTimeInterval(10), "a success resets the doubling")
    }

    @Test func anAbandonedProbeFreesTheSlot() {
        var breaker = CircuitBreaker(policy: .init(failureThreshold: 1, openFor: 1))
        breaker.failed(now: start)
        let later = start.addingTimeInterval(1)
        #expect(breaker.admit(now: later) == .probe)
        breaker.abandoned()
        #expect(breaker.admit(now: later) == .probe)
    }
}

@Suite("Retry-After")
struct RetryAfterTests {
    @Test func secondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(RetryAfter.seconds(from: "120", now: now) == 120)
        #expect(RetryAfter.seconds(from: " 0 ", now: now) == 0)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(RetryAfter.seconds(from: formatter.string(from: now.addingTimeInterval(90)), now: now) == 90)
        #expect(RetryAfter.seconds(from: formatter.string(from: now.addingTimeInterval(-90)), now: now) == 0)
        #expect(RetryAfter.seconds(from: "soon", now: now) == nil)
        #expect(RetryAfter.seconds(from: "-5", now: now) == nil)
    }
}
