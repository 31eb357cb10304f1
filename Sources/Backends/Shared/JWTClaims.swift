import Foundation

/// Reads a JWT's payload without verifying it (the backend verifies; the gateway only wants to
/// know when the token expires, to refresh it before it is refused).
public enum JWTClaims {
    public static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let exp = (object["exp"] as? NSNumber)?.doubleValue
        else { return nil }
        return Date(timeIntervalSince1970: exp)
    }

    /// True when the token's `exp` is less than `margin` seconds away (or past).
    public static func expiresSoon(_ token: String, margin: TimeInterval = 30, now: Date = Date()) -> Bool {
        guard let expiry = expiry(of: token) else { return false }
        return expiry.timeIntervalSince(now) < margin
    }
}
