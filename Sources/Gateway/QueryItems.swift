import Aggregation
import Foundation
import Model

/// Decodes a query string into ordered name/value pairs (`+` is a space, percent-escapes
/// decoded). Malformed escapes are a 400, never a guess.
enum QueryItems {
    static func parse(_ query: String?) throws(ErrorDetail) -> [(String, String)] {
        guard let query, !query.isEmpty else { return [] }
        guard query.utf8.count <= 4096 else {
            throw .badParameter("the query string is longer than 4096 bytes")
        }
        var items: [(String, String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pieces[0]), !name.isEmpty else {
                throw .badParameter("the query has a malformed parameter name")
            }
            let rawValue = pieces.count > 1 ? pieces[1] : ""
            guard let value = decode(rawValue) else {
                throw .badParameter("\(RouteParameter.shown(name)) has a malformed percent-escape")
            }
            items.append((name, value))
        }
        return items
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
