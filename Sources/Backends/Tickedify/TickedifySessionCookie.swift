import Foundation
import Model

/// The session cookie a Tickedify login sets, read from its `Set-Cookie` header:
/// `tickedify.sid=s%3A…; Path=/; Expires=<login + 24 h>; HttpOnly; SameSite=Lax`.
public struct TickedifySessionCookie: Sendable, Equatable {
    /// The server's `maxAge`: what a cookie without `Expires` or `Max-Age` is assumed to live.
    public static let assumedLifetime: TimeInterval = 24 * 3600
    /// The longest lifetime believed (RFC 6265bis caps `Max-Age` and `Expires` at 400 days): a
    /// server's `Max-Age=1e400` or a year-9999 `Expires` is not a cookie for ever, nor an expiry
    /// the vault's record cannot hold.
    public static let maximumLifetime: TimeInterval = 400 * 24 * 3600

    /// The `name=value` pair to send back in `Cookie`.
    public var pair: String
    /// How long the cookie lives from the moment of the answer, in seconds.
    public var lifetime: TimeInterval

    public init(pair: String, lifetime: TimeInterval) {
        self.pair = pair
        self.lifetime = lifetime
    }

    /// The cookie named `name` among `setCookies`, or nil. Its lifetime comes from `Max-Age`
    /// (which wins, as in RFC 6265), else from `Expires` measured against the answer's `Date`
    /// (`serverDate`, so a skewed clock on either side does not shorten or stretch it; without
    /// one, against `now`), else ``assumedLifetime``; never more than ``maximumLifetime``.
    public static func parse(
        _ setCookies: [String], name: String, serverDate: String?, now: Date
    ) -> TickedifySessionCookie? {
        for header in setCookies {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, pair.hasPrefix(name + "=") else { continue }
            var maxAge: TimeInterval?
            var expires: Date?
            for attribute in parts.dropFirst() {
                let (key, value) = split(attribute)
                switch key.lowercased() {
                case "max-age": maxAge = Double(value).flatMap { $0.isFinite ? max(0, $0) : nil }
                case "expires": expires = httpDate(value)
                default: break
                }
            }
            let reference = serverDate.flatMap(httpDate) ?? now
            let lifetime = maxAge ?? expires.map { max(0, $0.timeIntervalSince(reference)) } ?? assumedLifetime
            return TickedifySessionCookie(pair: pair, lifetime: min(lifetime, maximumLifetime))
        }
        return nil
    }

    private static func split(_ attribute: String) -> (String, String) {
        guard let equals = attribute.firstIndex(of: "=") else { return (attribute, "") }
        let key = attribute[..<equals].trimmingCharacters(in: .whitespaces)
        let value = attribute[attribute.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        return (key, value)
    }

    /// An IMF-fixdate (`Tue, 24 Nov 2026 17:56:03 GMT`), as Express writes `Expires` and `Date`.
    static func httpDate(_ text: String) -> Date? {
        Civil.parseHTTPDate(text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
