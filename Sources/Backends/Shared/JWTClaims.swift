import Foundation
import Model
import Synchronization

/// Reads a JWT's payload without verifying it (the backend verifies; the gateway only wants to
/// know when the token expires, to refresh it before it is refused).
public enum JWTClaims {
    public static func expiry(of token: String) -> Date? {
        claims(of: token).exp.map(Date.init(timeIntervalSince1970:))
    }

    /// True when the token's `exp` is less than `margin` seconds away (or past). The margin is at
    /// most a quarter of the token's lifetime (`exp - iat`), so short-lived tokens are not
    /// refreshed on every use.
    public static func expiresSoon(_ token: String, margin: TimeInterval = 30, now: Date = Date()) -> Bool {
        let claims = claims(of: token)
        guard let exp = claims.exp else { return false }
        var effective = margin
        if let iat = claims.iat, exp > iat {
            effective = min(margin, (exp - iat) / 4)
        }
        return exp - now.timeIntervalSince1970 < effective
    }

    /// The `exp` and `iat` of the tokens read lately: a token is used for every call its backend
    /// gets, and its claims never change. At most 64 are kept (then the list starts again).
    private static let known = Mutex<[String: Claims]>([:])

    struct Claims: Sendable {
        var exp: Double?
        var iat: Double?
    }

    static func claims(of token: String) -> Claims {
        if let kept = known.withLock({ $0[token] }) { return kept }
        let read = Claims(exp: claim("exp", of: token), iat: claim("iat", of: token))
        known.withLock { known in
            if known.count >= 64 { known.removeAll(keepingCapacity: true) }
            known[token] = read
        }
        return read
    }

    /// A numeric claim of the payload. Read on every call a token-holding backend makes, so in
    /// bytes and with the gateway's own JSON reader (Foundation's string replacing and
    /// `JSONSerialization` were a twelfth of a cold day's CPU).
    static func claim(_ name: String, of token: String) -> Double? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].map { byte in
            byte == UInt8(ascii: "-") ? UInt8(ascii: "+") : byte == UInt8(ascii: "_") ? UInt8(ascii: "/") : byte
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(base64)),
            case .object(let object)? = try? JSONValue(parsing: data)
        else { return nil }
        return object[name]?.numberValue
    }
}
