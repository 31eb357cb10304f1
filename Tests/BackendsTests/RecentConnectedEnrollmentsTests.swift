import Foundation
import Model
import Testing

@testable import Backends

/// The connected enrollments are read from the vault at most every ten seconds per profile.
@Suite("Recent connected enrollments")
struct RecentConnectedEnrollmentsTests {
    @Test func aListIsUsedForTenSecondsPerProfile() {
        let recent = RecentConnectedEnrollments()
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(recent.kept(profile: "default", now: now) == nil)
        recent.keep([], profile: "default", now: now)
        #expect(recent.kept(profile: "default", now: now.addingTimeInterval(9.9)) != nil)
        #expect(recent.kept(profile: "default", now: now.addingTimeInterval(10)) == nil, "read again")
        #expect(recent.kept(profile: "default", now: now.addingTimeInterval(-1)) == nil, "a clock set back reads again")
        #expect(recent.kept(profile: "ben", now: now) == nil, "per profile")
    }
}
