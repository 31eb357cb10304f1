import Backends
import Foundation
import Model
import Testing

/// The trust decision on its own: events in, answers out, no sockets and no clock.
@Suite("Tickedify session trust")
struct TickedifySessionTrustTests {
    static let login = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 24 * 3600

    /// A state whose `cookie` was logged in at `login`, running out a day later.
    static func loggedIn(window: TimeInterval = 30, cookie: String = "tickedify.sid=a") -> TickedifySessionTrust {
        var trust = TickedifySessionTrust(policy: .init(window: window))
        trust.loggedIn(cookie: cookie, sentAt: login, expires: login + day)
        return trust
    }

    @Test func aProofCountsForTheWindowOnly() {
        var trust = Self.loggedIn()
        let proof = Self.login + 3600
        trust.proven("tickedify.sid=a", sentAt: proof)
        #expect(!trust.needsCheck("tickedify.sid=a", now: proof + 29))
        #expect(trust.needsCheck("tickedify.sid=a", now: proof + 31))
        #expect(trust.needsCheck("tickedify.sid=a", now: proof + 30), "open at its start, closed at its end")
    }

    @Test func aLoginIsAProof() {
        let trust = Self.loggedIn()
        #expect(!trust.needsCheck("tickedify.sid=a", now: Self.login + 29))
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 31))
    }

    /// The 401 that leads to a login and the login itself can carry the same instant (a coarse
    /// clock, a test clock): the new cookie is still proven by its login. A failure after the
    /// login was sent still ends its trust.
    @Test func aLoginAfterTheFailureThatCausedItIsAProofEvenAtTheSameInstant() {
        var trust = Self.loggedIn()
        let failure = Self.login + 100
        trust.failed(.unauthorized, at: failure)
        trust.loggedIn(cookie: "tickedify.sid=b", sentAt: failure, expires: failure + Self.day)
        #expect(!trust.needsCheck("tickedify.sid=b", now: failure + 1))

        trust.failed(.unauthorized, at: failure + 10)
        trust.loggedIn(cookie: "tickedify.sid=c", sentAt: failure + 9, expires: failure + Self.day)
        #expect(trust.needsCheck("tickedify.sid=c", now: failure + 11), "the trust ended after the login was sent")
    }

    @Test func aWindowOfZeroAlwaysChecks() {
        var trust = Self.loggedIn(window: 0)
        trust.proven("tickedify.sid=a", sentAt: Self.login + 10)
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 10))
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 11))
    }

    @Test func anotherCookieIsNeitherTrustedNorProvenByAnswersToTheOldOne() {
        var trust = Self.loggedIn()
        #expect(trust.needsCheck("tickedify.sid=other", now: Self.login + 1))
        trust.loggedIn(cookie: "tickedify.sid=b", sentAt: Self.login + 100, expires: Self.login + 100 + Self.day)
        #expect(!trust.needsCheck("tickedify.sid=b", now: Self.login + 110))
        trust.proven("tickedify.sid=a", sentAt: Self.login + 120)
        #expect(trust.needsCheck("tickedify.sid=b", now: Self.login + 135), "the old cookie's answer proves nothing")
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 121))
    }

    @Test func noTrustWithinTenMinutesOfTheCookiesExpiry() {
        var trust = Self.loggedIn()
        let expires = Self.login + Self.day
        trust.proven("tickedify.sid=a", sentAt: expires - 620)
        #expect(!trust.needsCheck("tickedify.sid=a", now: expires - 610))
        trust.proven("tickedify.sid=a", sentAt: expires - 600)
        #expect(trust.needsCheck("tickedify.sid=a", now: expires - 599))
        trust.proven("tickedify.sid=a", sentAt: expires + 5)
        #expect(trust.needsCheck("tickedify.sid=a", now: expires + 6), "an expired cookie is checked every time")
    }

    @Test(arguments: TickedifySessionTrust.Failure.allCases)
    func everyFailureEndsTheTrustAtOnce(failure: TickedifySessionTrust.Failure) {
        var trust = Self.loggedIn()
        trust.proven("tickedify.sid=a", sentAt: Self.login + 10)
        #expect(!trust.needsCheck("tickedify.sid=a", now: Self.login + 11))
        trust.failed(failure, at: Self.login + 12)
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 12))
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 13))
        // An answer to a request sent before the failure does not bring it back …
        trust.proven("tickedify.sid=a", sentAt: Self.login + 11)
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 14))
        // … a request sent after it does.
        trust.proven("tickedify.sid=a", sentAt: Self.login + 15)
        #expect(!trust.needsCheck("tickedify.sid=a", now: Self.login + 16))
    }

    @Test func aFailureEndsTheTrustWhicheverCookieTheCallHad() {
        var trust = Self.loggedIn()
        trust.failed(.unreachable, at: Self.login + 1)
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 2))
    }

    @Test func aClockThatWentBackDoesNotStretchTheWindow() {
        var trust = Self.loggedIn()
        trust.proven("tickedify.sid=a", sentAt: Self.login + 100)
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 50))
    }

    @Test func aRestoredCookieIsCheckedFirst() {
        var trust = TickedifySessionTrust()
        trust.restored(cookie: "tickedify.sid=a", expires: Self.login + Self.day, now: Self.login + 60)
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 60))
        #expect(!trust.shouldRenewProactively(now: Self.login + 60))
        trust.proven("tickedify.sid=a", sentAt: Self.login + 61)
        #expect(!trust.needsCheck("tickedify.sid=a", now: Self.login + 62))
    }

    @Test func aRestoredCookieWithoutAKnownExpiryIsRenewedOnceAndCheckedEveryTime() {
        var trust = TickedifySessionTrust()
        var claimed: Bool
        let now = Self.login + 60
        trust.restored(cookie: "tickedify.sid=a", expires: nil, now: now)
        trust.proven("tickedify.sid=a", sentAt: now)
        #expect(trust.needsCheck("tickedify.sid=a", now: now + 1))
        claimed = trust.claimRenewal(now: now + 1)
        #expect(claimed)
        claimed = trust.claimRenewal(now: now + 2)
        #expect(!claimed)
    }

    @Test func withinAnHourOfItsExpiryTheCookieIsRenewedOnce() {
        var trust = Self.loggedIn()
        var claimed: Bool
        let expires = Self.login + Self.day
        #expect(!trust.shouldRenewProactively(now: expires - 3601))
        claimed = trust.claimRenewal(now: expires - 3601)
        #expect(!claimed)
        #expect(trust.shouldRenewProactively(now: expires - 3600))
        // Trust still holds between an hour and ten minutes before the expiry.
        trust.proven("tickedify.sid=a", sentAt: expires - 3000)
        #expect(!trust.needsCheck("tickedify.sid=a", now: expires - 2990))
        claimed = trust.claimRenewal(now: expires - 2990)
        #expect(claimed)
        // Once per cookie: a failed or refused login is not tried again …
        #expect(!trust.shouldRenewProactively(now: expires - 2980))
        claimed = trust.claimRenewal(now: expires - 60)
        #expect(!claimed)
        claimed = trust.claimRenewal(now: expires + 60)
        #expect(!claimed)
        // … but the next cookie gets its own chance.
        trust.loggedIn(cookie: "tickedify.sid=b", sentAt: expires - 30, expires: expires - 30 + Self.day)
        claimed = trust.claimRenewal(now: expires)
        #expect(!claimed)
        claimed = trust.claimRenewal(now: expires - 30 + Self.day - 3000)
        #expect(claimed)
    }

    @Test func aCookieThatLivesLessThanAnHourIsNotRenewedAheadOfTime() {
        var trust = TickedifySessionTrust()
        var claimed: Bool
        trust.loggedIn(cookie: "tickedify.sid=a", sentAt: Self.login, expires: Self.login + 1800)
        claimed = trust.claimRenewal(now: Self.login + 60)
        #expect(!claimed)
        #expect(!trust.needsCheck("tickedify.sid=a", now: Self.login + 1))
        trust.proven("tickedify.sid=a", sentAt: Self.login + 1195)
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 1201), "ten minutes from its end: checked")
    }
}

@Suite("Tickedify session cookie")
struct TickedifySessionCookieTests {
    /// Fri, 15 Jan 2027 08:00:00 GMT.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let dateHeader = "Fri, 15 Jan 2027 08:00:00 GMT"

    @Test func expiresIsMeasuredAgainstTheServersDate() throws {
        let cookie = try #require(
            TickedifySessionCookie.parse(
                ["tickedify.sid=s%3Aabc.def; Path=/; Expires=Sat, 16 Jan 2027 08:00:00 GMT; HttpOnly; SameSite=Lax"],
                name: "tickedify.sid", serverDate: Self.dateHeader, now: Self.now + 3 * 3600
            ))
        #expect(cookie.pair == "tickedify.sid=s%3Aabc.def")
        #expect(cookie.lifetime == 24 * 3600, "the server's clock, not ours (three hours ahead here)")
    }

    @Test func withoutADateExpiresIsMeasuredAgainstOurClock() throws {
        let cookie = try #require(
            TickedifySessionCookie.parse(
                ["tickedify.sid=x; Path=/; Expires=Sat, 16 Jan 2027 08:00:00 GMT"], name: "tickedify.sid",
                serverDate: nil,
                now: Self.now + 3 * 3600
            ))
        #expect(cookie.lifetime == 21 * 3600)
    }

    @Test func maxAgeWinsAndAMissingLifetimeIsADay() throws {
        let both = try #require(
            TickedifySessionCookie.parse(
                ["tickedify.sid=x; Max-Age=3600; Expires=Sat, 16 Jan 2027 08:00:00 GMT"], name: "tickedify.sid",
                serverDate: Self.dateHeader, now: Self.now
            ))
        #expect(both.lifetime == 3600)
        let neither = try #require(
            TickedifySessionCookie.parse(
                ["other=1; Path=/", "tickedify.sid=x; Path=/; HttpOnly"], name: "tickedify.sid", serverDate: nil,
                now: Self.now
            ))
        #expect(neither.pair == "tickedify.sid=x")
        #expect(neither.lifetime == 24 * 3600)
        #expect(TickedifySessionCookie.parse(["other=1"], name: "tickedify.sid", serverDate: nil, now: Self.now) == nil)
    }
}

@Suite("Tickedify session_trust setting")
struct TickedifySessionTrustSettingTests {
    static func decode(_ extra: String) throws -> TickedifySettings {
        let yaml = "base_url: http://127.0.0.1:9100\nemail: a@example.org\npassword: pw\n" + extra
        return try YAMLDocument(file: "daygate.yaml", environment: [:]).decode(TickedifySettings.self, from: yaml)
    }

    @Test func defaultsToThirtySecondsAndTakesDurations() throws {
        #expect(try Self.decode("").sessionTrust.seconds == 30)
        #expect(try Self.decode("session_trust: 0\n").sessionTrust.seconds == 0)
        #expect(try Self.decode("session_trust: 5m\n").sessionTrust.seconds == 300)
        #expect(try Self.decode("session_trust: 10s\n").sessionTrust.seconds == 10)
    }

    @Test func moreThanFiveMinutesIsRefusedWithAClearMessage() throws {
        do {
            _ = try Self.decode("session_trust: 301s\n")
            Issue.record("301 s must be refused")
        } catch {
            let text = "\(error)"
            #expect(text.contains("session_trust"), "\(text)")
            #expect(text.contains("between 0 and 300s"), "\(text)")
        }
        #expect(throws: (any Error).self) { try Self.decode("session_trust: -1\n") }
    }

    @Test func keepWarmDefaultsToFiveMinutesAndIsRefusedPastAnHour() throws {
        #expect(try Self.decode("").sessionKeepWarm.seconds == 300)
        #expect(try Self.decode("session_keep_warm: 0\n").sessionKeepWarm.seconds == 0)
        #expect(try Self.decode("session_keep_warm: 1h\n").sessionKeepWarm.seconds == 3600)
        do {
            _ = try Self.decode("session_keep_warm: 61m\n")
            Issue.record("61 minutes must be refused")
        } catch {
            #expect("\(error)".contains("session_keep_warm"), "\(error)")
            #expect("\(error)".contains("between 0 and 3600s"), "\(error)")
        }
    }

}

extension TickedifySessionTrustTests {
    // MARK: - Keeping a session in use proven

    /// A state whose cookie was logged in and used at `login`, kept warm for `keepWarm`.
    static func used(keepWarm: TimeInterval = 300, window: TimeInterval = 30) -> TickedifySessionTrust {
        var trust = TickedifySessionTrust(policy: .init(window: window, keepWarm: keepWarm))
        trust.loggedIn(cookie: "tickedify.sid=a", sentAt: Self.login, expires: Self.login + Self.day)
        trust.used(at: Self.login)
        return trust
    }

    /// The checks a keeper would send from `now` on, each proving the session when it is sent.
    static func keeperChecks(_ trust: inout TickedifySessionTrust, from now: Date) -> [TimeInterval] {
        var checks: [TimeInterval] = []
        while let due = trust.keepWarmCheck(now: now), checks.count < 1000 {
            checks.append(due.timeIntervalSince(Self.login))
            trust.proven("tickedify.sid=a", sentAt: due)
        }
        return checks
    }

    @Test func aSessionInUseIsCheckedFiveSecondsBeforeItsProofRunsOut() {
        var trust = Self.used()
        #expect(trust.keepWarmCheck(now: Self.login) == Self.login + 25)
        trust.proven("tickedify.sid=a", sentAt: Self.login + 25)
        #expect(trust.keepWarmCheck(now: Self.login + 25) == Self.login + 50)
        #expect(!trust.needsCheck("tickedify.sid=a", now: Self.login + 54), "the check carries the trust on")
        #expect(Self.used(window: 6).keepWarmCheck(now: Self.login) == Self.login + 3, "half a short window")
    }

    @Test func keepingWarmEndsKeepWarmAfterTheLastUse() {
        var trust = Self.used(keepWarm: 120)
        #expect(Self.keeperChecks(&trust, from: Self.login) == [25, 50, 75, 100])
        #expect(trust.needsCheck("tickedify.sid=a", now: Self.login + 131), "idle: the trust runs out")
        trust.used(at: Self.login + 200)
        trust.proven("tickedify.sid=a", sentAt: Self.login + 200)
        #expect(Self.keeperChecks(&trust, from: Self.login + 200) == [225, 250, 275, 300])
    }

    @Test func nothingIsKeptWarmThatIsOffUnusedUnprovenOrNearItsExpiry() {
        #expect(Self.used(keepWarm: 0).keepWarmCheck(now: Self.login) == nil, "turned off")
        #expect(Self.used(window: 0).keepWarmCheck(now: Self.login) == nil, "no trust to keep")

        var unused = TickedifySessionTrust(policy: .init(window: 30, keepWarm: 300))
        unused.loggedIn(cookie: "tickedify.sid=a", sentAt: Self.login, expires: Self.login + Self.day)
        #expect(unused.keepWarmCheck(now: Self.login) == nil, "a session no call needed yet")

        var ended = Self.used()
        ended.failed(.unauthorized, at: Self.login + 1)
        #expect(ended.keepWarmCheck(now: Self.login + 1) == nil, "the trust ended")

        var restored = TickedifySessionTrust(policy: .init(window: 30, keepWarm: 300))
        restored.restored(cookie: "tickedify.sid=a", expires: Self.login + Self.day, now: Self.login)
        restored.used(at: Self.login)
        #expect(restored.keepWarmCheck(now: Self.login) == nil, "nothing proved the cookie from the vault")

        var nearExpiry = TickedifySessionTrust(policy: .init(window: 30, keepWarm: 300))
        nearExpiry.loggedIn(cookie: "tickedify.sid=a", sentAt: Self.login, expires: Self.login + 620)
        nearExpiry.used(at: Self.login)
        #expect(nearExpiry.keepWarmCheck(now: Self.login) == nil, "trusted no longer by then: the next call renews")
    }
}
