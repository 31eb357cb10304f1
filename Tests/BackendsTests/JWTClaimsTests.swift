import Backends
import Foundation
import Testing

@Suite("JWT expiry")
struct JWTClaimsTests {
    func token(_ claims: [String: Double]) throws -> String {
        let payload = try JSONSerialization.data(withJSONObject: claims)
        let base64 = payload.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
        return "eyJhbGciOiJIUzI1NiJ9.\(base64).c2lnbmF0dXJl"
    }

    @Test func readsExpiry() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let long = try token(["iat": 1_800_000_000 - 600, "exp": 1_800_000_000 + 600])
        #expect(JWTClaims.expiry(of: long) == now.addingTimeInterval(600))
        #expect(!JWTClaims.expiresSoon(long, now: now))
        #expect(JWTClaims.expiresSoon(long, now: now.addingTimeInterval(580)))
        #expect(JWTClaims.expiresSoon(long, now: now.addingTimeInterval(700)))
    }

    @Test func shortLivedTokensAreNotRefreshedOnEveryUse() throws {
        // A 20 s token: the margin shrinks to 5 s instead of the usual 30 s.
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let short = try token(["iat": 1_800_000_000, "exp": 1_800_000_020])
        #expect(!JWTClaims.expiresSoon(short, now: now))
        #expect(!JWTClaims.expiresSoon(short, now: now.addingTimeInterval(14)))
        #expect(JWTClaims.expiresSoon(short, now: now.addingTimeInterval(16)))
    }

    @Test func opaqueTokensNeverLookExpired() {
        #expect(JWTClaims.expiry(of: "opaque-token") == nil)
        #expect(!JWTClaims.expiresSoon("a.b.c"))
    }
}
