import Foundation
import Model
import Testing

@testable import Backends

/// PRSNL's timeline cursor as daygate gives it out and takes it back, without sockets.
@Suite("PRSNL cursor")
struct PRSNLCursorTests {
    /// PRSNL's `next_cursor` ends `+00:00`; pasted unencoded into a URL the `+` is a space.
    @Test func aCursorSurvivesBeingPastedUnencoded() {
        #expect(PRSNLCursor.givenOut("2026-11-23T10:00:00.123456+00:00") == "2026-11-23T10:00:00.123456Z")
        #expect(PRSNLCursor.givenOut("2026-11-23T10:00:00Z") == "2026-11-23T10:00:00Z")
        #expect(PRSNLCursor.taken("2026-11-23T10:00:00.123456 00:00") == "2026-11-23T10:00:00.123456+00:00")
        #expect(PRSNLCursor.taken("2026-11-23T10:00:00.123456Z") == "2026-11-23T10:00:00.123456Z")
        #expect(PRSNLCursor.taken("2026-11-23T10:00:00-05:00") == "2026-11-23T10:00:00-05:00")
        for bad in [
            "yesterday", "2026-11-23", "2026-11-23T10:00:00 00", "2026-02-30T10:00:00Z", "2026-11-23T10:00:00.Z",
        ] {
            #expect(PRSNLCursor.taken(bad) == nil, "\(bad)")
        }
    }

    /// The page that starts with an item: one microsecond after its creation, in UTC.
    @Test func justAfterAnItemIsOneMicrosecondLaterInUTC() {
        #expect(PRSNLCursor.justAfter("2026-11-23T10:00:00.123456+00:00") == "2026-11-23T10:00:00.123457Z")
        #expect(PRSNLCursor.justAfter("2026-12-31T23:59:59.999999+00:00") == "2027-01-01T00:00:00Z")
        #expect(PRSNLCursor.justAfter("2026-11-23T10:00:00+01:00") == "2026-11-23T09:00:00.000001Z")
        #expect(PRSNLCursor.justAfter("2026-11-23T10:00:00.5Z") == "2026-11-23T10:00:00.500001Z")
        #expect(PRSNLCursor.justAfter("not a time") == nil)
    }
}
