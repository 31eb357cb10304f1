import Foundation
import Model

/// Builds query strings the strict way: everything but RFC 3986 unreserved characters is
/// percent-encoded, so a `+` in an offset reaches the server as `%2B`, not as a space.
public enum QueryString {
    public static func encode(_ items: [(String, String?)]) -> String {
        items.compactMap { name, value in
            value.map { "\(escape(name))=\(escape($0))" }
        }.joined(separator: "&")
    }

    public static func escape(_ text: String) -> String {
        // What `addingPercentEncoding` would leave as it is, without building a new string.
        if unreservedASCII.containsAll(of: text) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// ``unreserved`` (ASCII only).
    static let unreservedASCII = ASCIIByteSet(lettersDigitsAnd: "-._~")

    /// Encodes one path segment: `/` and `..` cannot change the upstream path.
    public static func pathSegment(_ text: String) -> String {
        let escaped = escape(text)
        return escaped == "." || escaped == ".." ? escaped.replacingOccurrences(of: ".", with: "%2E") : escaped
    }

    static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()
}
