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

    /// Every UTF-8 byte that is not unreserved as `%XX` (upper-case hex): what Foundation's
    /// `addingPercentEncoding(withAllowedCharacters:)` writes with RFC 3986's unreserved
    /// characters (letters, digits, `-._~`) allowed, at a fraction of its cost
    /// (`QueryStringTests` compares the two).
    public static func escape(_ text: String) -> String {
        // Plain text is left as it is, without building a new string.
        if unreservedASCII.containsAll(of: text) { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if unreservedASCII.contains(byte) {
                escaped.append(byte)
            } else {
                escaped.append(UInt8(ascii: "%"))
                escaped.append(upperHex[Int(byte >> 4)])
                escaped.append(upperHex[Int(byte & 0xF)])
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// RFC 3986's unreserved characters.
    static let unreservedASCII = ASCIIByteSet(lettersDigitsAnd: "-._~")

    /// Encodes one path segment: `/` and `..` cannot change the upstream path.
    public static func pathSegment(_ text: String) -> String {
        let escaped = escape(text)
        return escaped == "." || escaped == ".." ? escaped.replacingOccurrences(of: ".", with: "%2E") : escaped
    }
}
