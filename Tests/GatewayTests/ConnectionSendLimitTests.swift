import NIOCore
import Testing

@testable import Gateway

/// The send limit and early answers under pressure, without sockets: a client that stops
/// reading its answer is closed after `Settings.send`; a request answered before its body ended
/// gives its slot up first when the budget is full.
struct ConnectionSendLimitTests {
    static let settings = ConnectionTimeouts.Settings(
        head: .seconds(10), body: .seconds(20), idle: .seconds(60), send: .seconds(30), underPressure: .seconds(1))
    static let start = ConnectionTimeoutsTests.start

    static func at(_ seconds: Double) -> NIODeadline { ConnectionTimeoutsTests.at(seconds) }

    @Test func aClientThatStopsReadingIsClosedAfterTheSendLimit() {
        var timeouts = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        timeouts.headRead()
        timeouts.requestEnded()
        timeouts.bytesRead(now: Self.at(0))
        // A stream on its way: no limit while the client takes it.
        #expect(timeouts.deadline == nil)
        timeouts.writabilityChanged(false, now: Self.at(100))
        #expect(timeouts.deadline?.at == Self.at(130))
        #expect(timeouts.deadline?.reason == .sendTimeout)
        // It read again in time: the limit is off, and a later stall starts it anew.
        timeouts.writabilityChanged(true, now: Self.at(120))
        #expect(timeouts.deadline == nil)
        timeouts.writabilityChanged(false, now: Self.at(200))
        timeouts.writabilityChanged(false, now: Self.at(210))
        #expect(timeouts.timerFired(now: Self.at(229)) == .wakeAt(Self.at(230)))
        #expect(timeouts.timerFired(now: Self.at(230)) == .close(.sendTimeout))
    }

    @Test func theNearerOfTheSendAndIdleLimitsWins() {
        var timeouts = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        timeouts.headRead()
        timeouts.requestEnded()
        timeouts.answerWritten(now: Self.at(0))
        timeouts.writabilityChanged(false, now: Self.at(0))
        #expect(timeouts.deadline?.reason == .sendTimeout)
        #expect(timeouts.deadline?.at == Self.at(30))
    }

    @Test func aRequestAnsweredBeforeItsBodyEndedIsShedAtOnceUnderPressure() {
        var refused = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        refused.headRead()
        refused.bytesRead(now: Self.at(0))
        refused.answerWritten(now: Self.at(0))  // a 401 before the body came
        #expect(refused.deadline?.at == Self.at(20))
        refused.pressureChanged(true)
        #expect(refused.deadline?.at == Self.at(0), "at once")
        #expect(refused.deadline?.reason == .shed)
        #expect(refused.timerFired(now: Self.at(0.5)) == .close(.shed))

        // Still reading the body of a request not answered yet: the body limit holds.
        var reading = ConnectionTimeouts(settings: Self.settings, now: Self.start)
        reading.headRead()
        reading.bytesRead(now: Self.at(0))
        reading.pressureChanged(true)
        #expect(reading.deadline?.at == Self.at(20))
        // The next request on the connection starts without the mark.
        refused.requestEnded()
        refused.headRead()
        refused.bytesRead(now: Self.at(2))
        #expect(refused.deadline?.at == Self.at(22))
    }
}
