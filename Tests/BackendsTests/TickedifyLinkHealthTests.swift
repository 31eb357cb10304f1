import Backends
import Foundation
import Testing

/// The kept Tickedify login link's state machine: what one answer without a session means
/// (nothing proven), when the link is tried again, and when the person is asked to connect.
struct TickedifyLinkHealthTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func aWorkingLinkIsTriedAtOnce() {
        let health = TickedifyLinkHealth()
        #expect(health.state == .ok)
        #expect(health.nextTry(now: start) == nil)
    }

    @Test func failuresBackOffFromAMinuteDoublingToAnHour() {
        var health = TickedifyLinkHealth()
        var now = start
        var waits: [TimeInterval] = []
        for _ in 0..<9 {
            health.failed(at: now)
            let next = health.nextTry(now: now)
            waits.append(next.map { $0.timeIntervalSince(now) } ?? 0)
            now = next ?? now
        }
        #expect(waits == [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
        #expect(health.state == .reauthSuspected)
        #expect(health.firstFailure == start)
    }

    @Test func onlyThreeDaysAndFiveFailuresAskForAReconnect() {
        var health = TickedifyLinkHealth()
        health.failed(at: start)
        health.failed(at: start.addingTimeInterval(TickedifyLinkHealth.giveUpAfter + 1))
        #expect(health.state == .reauthSuspected, "two failures three days apart prove nothing")
        var many = TickedifyLinkHealth()
        for minute in 0..<10 { many.failed(at: start.addingTimeInterval(Double(minute) * 60)) }
        #expect(many.state == .reauthSuspected, "ten failures in ten minutes are an outage")
        for day in 1...3 { many.failed(at: start.addingTimeInterval(Double(day) * 86_400)) }
        #expect(many.state == .reauthRequired)
    }

    @Test func aSessionFromTheLinkForgetsTheFailures() {
        var health = TickedifyLinkHealth()
        for minute in 0..<6 { health.failed(at: start.addingTimeInterval(Double(minute) * 600)) }
        health.worked()
        #expect(health == TickedifyLinkHealth())
        #expect(health.state == .ok)
    }
}
