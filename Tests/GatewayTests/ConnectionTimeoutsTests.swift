import NIOCore
import Testing

@testable import Gateway

/// `ConnectionTimeouts` without sockets: which limit runs in each phase of a connection, and
/// what pressure does to them.
struct ConnectionTimeoutsTests {
    static let settings = ConnectionTimeouts.Settings(
        head: .seconds(10), body: .seconds(20), idle: .seconds(60), underPressure: .seconds(1)
    )
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    static func at(_ seconds: Double) -> NIODeadline {
        start + .nanoseconds(Int64(seconds * 1e9))
    }

    @Test func aNewConnectionMustSendItsHeadWithinTheHeadLimit() {
        let timeouts = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        #expect(timeouts.deadline?.at == Self.at(10))
        #expect(timeouts.deadline?.reason == .headTimeout)
        #expect(timeouts.timerFired(now: Self.at(9.9)) == .wakeAt(Self.at(10)))
        #expect(timeouts.timerFired(now: Self.at(10)) == .close(.headTimeout))
    }

    @Test func noLimitRunsWhileAnAnswerIsOnItsWayThenTheIdleLimit() {
        var timeouts = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        timeouts.headRead()
        #expect(timeouts.deadline == nil, "the body's time starts when the read that brought the head ends")
        timeouts.bytesRead(now: Self.at(1))
        #expect(timeouts.deadline?.at == Self.at(21))
        #expect(timeouts.deadline?.reason == .bodyTimeout)
        timeouts.requestEnded()
        timeouts.bytesRead(now: Self.at(2))  // the read that brought the body's end
        #expect(timeouts.deadline == nil)
        // A stream that answers for an hour is not cut; the timer just looks again later.
        #expect(timeouts.timerFired(now: Self.at(3600)) == .wakeAt(Self.at(3660)))
        timeouts.answerWritten(now: Self.at(3601))
        #expect(timeouts.deadline?.at == Self.at(3661))
        #expect(timeouts.deadline?.reason == .idleTimeout)
        #expect(timeouts.timerFired(now: Self.at(3661)) == .close(.idleTimeout))
    }

    @Test func bytesOfANextRequestStartTheHeadLimit() {
        var timeouts = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        timeouts.headRead()
        timeouts.requestEnded()
        timeouts.bytesRead(now: Self.at(0))
        timeouts.answerWritten(now: Self.at(0.1))
        #expect(timeouts.deadline?.at == Self.at(60.1))
        timeouts.bytesRead(now: Self.at(30))  // a read that brought neither a head nor an end
        #expect(timeouts.deadline?.at == Self.at(40))
        #expect(timeouts.deadline?.reason == .headTimeout)
        timeouts.bytesRead(now: Self.at(35))  // more of the same head: the limit does not restart
        #expect(timeouts.deadline?.at == Self.at(40))
    }

    @Test func aBodyMustArriveWithinTheBodyLimitHoweverItTrickles() {
        var timeouts = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        timeouts.headRead()
        timeouts.bytesRead(now: Self.at(2))
        for second in stride(from: 3.0, to: 22, by: 1) { timeouts.bytesRead(now: Self.at(second)) }
        #expect(timeouts.timerFired(now: Self.at(22)) == .close(.bodyTimeout))
    }

    @Test func pipelinedRequestsKeepTheConnectionBusyUntilTheLastAnswer() {
        var timeouts = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        for _ in 0..<3 {
            timeouts.headRead()
            timeouts.requestEnded()
        }
        timeouts.bytesRead(now: Self.at(0))
        timeouts.answerWritten(now: Self.at(1))
        timeouts.answerWritten(now: Self.at(2))
        #expect(timeouts.deadline == nil)
        timeouts.answerWritten(now: Self.at(3))
        #expect(timeouts.deadline?.at == Self.at(63))
    }

    @Test func pressureShrinksTheHeadAndIdleLimitsButNotTheBodyOne() {
        var idle = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        idle.headRead()
        idle.requestEnded()
        idle.answerWritten(now: Self.at(0))
        idle.pressureChanged(true)
        #expect(idle.deadline?.at == Self.at(1))
        #expect(idle.deadline?.reason == .shed)
        idle.pressureChanged(false)
        #expect(idle.deadline?.at == Self.at(60))

        var head = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        head.pressureChanged(true)
        #expect(head.timerFired(now: Self.at(1)) == .close(.shed))

        var body = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        body.headRead()
        body.bytesRead(now: Self.at(0))
        body.pressureChanged(true)
        #expect(body.deadline?.at == Self.at(20))
        #expect(body.deadline?.reason == .bodyTimeout)
    }

    @Test func aLimitShorterThanThePressureOneStaysItsOwn() {
        var settings = Self.settings
        settings.head = .milliseconds(500)
        var timeouts = ConnectionTimeouts(settings: settings, now: Self.start)
        timeouts.pressureChanged(true)
        #expect(timeouts.deadline?.at == Self.at(0.5))
        #expect(timeouts.deadline?.reason == .headTimeout)
    }
}

/// The connection budget's arithmetic: room for upstream sockets and SQLite below the
/// open-file limit, and a descriptor to spare for each connection.
struct ConnectionBudgetLimitTests {
    @Test func theConfiguredLimitHoldsWhenDescriptorsAreAmple() {
        let budget = ConnectionBudget.limit(
            maxConnections: 1024, descriptors: 1_048_576, upstreamHosts: 5, upstreamPerHost: 64)
        #expect(budget.limit == 1024)
        #expect(budget.reserved == 128 + 5 * 64)
    }

    @Test func aLowOpenFileLimitLowersTheBudget() {
        let budget = ConnectionBudget.limit(
            maxConnections: 1024, descriptors: 1024, upstreamHosts: 5, upstreamPerHost: 64)
        #expect(budget.limit == (1024 - 128 - 320) / 2)
        let demo = ConnectionBudget.limit(
            maxConnections: 1024, descriptors: 1024, upstreamHosts: 5, upstreamPerHost: 64, upstreamInProcess: true
        )
        #expect(demo.limit == (1024 - 128 - 640) / 2)
    }

    @Test func neverBelowSixteen() {
        #expect(
            ConnectionBudget.limit(maxConnections: 1024, descriptors: 256, upstreamHosts: 5, upstreamPerHost: 64).limit
                == 16)
    }
}
