import Foundation
import Model

/// Reads the human message out of an upstream error body, whatever its shape, so a new
/// backend's errors read without code of its own. The shapes known, first match wins:
/// - `detail` as a string, an object or an array of FastAPI validation errors (`loc`, `msg`);
///   RFC 9457 problem details (`application/problem+json`: `detail`, else `title`);
/// - OAuth 2's `error_description` (before its `error`, which is only a code);
/// - `error` as a string or an object with `message` (Express, Stripe-like APIs) — but an
///   `error` that is only a code (one word: `rate_limit_exceeded`) beside a top-level `message`
///   gives way to the message (slowapi's 429 in PRSNL);
/// - a top-level `message` (Spring, many Node APIs) or `reason` (Open-Meteo's
///   `{"error":true,"reason":…}`: its `error` is only a flag);
/// - `errors` as a list of `{message}` (GraphQL) or `{title, detail}` (JSON:API) or strings;
/// - a top-level `title` or `msg`.
public enum UpstreamErrorMessage {
    /// The keys read, in order.
    static let keys = ["detail", "error_description", "error", "message", "reason", "errors", "title", "msg"]

    public static func extract(from body: Data) -> String? {
        guard !body.isEmpty, let value = try? JSONValue(parsing: body) else { return nil }
        if let code = value["error"]?.stringValue, isCode(code), let text = value["message"].flatMap(message(in:)) {
            return BackendError.scrub(text)
        }
        for key in keys {
            if let text = value[key].flatMap(message(in:)) {
                return BackendError.scrub(text)
            }
        }
        return nil
    }

    /// A machine code rather than a sentence: letters, digits, `_`, `-` and `.` only.
    static func isCode(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0)
            }
    }

    static func message(in value: JSONValue) -> String? {
        switch value {
        case .string(let text):
            return text
        case .array(let items):
            let parts = items.compactMap { item -> String? in
                guard
                    let text = item["msg"]?.stringValue ?? item["message"]?.stringValue ?? item["detail"]?.stringValue
                        ?? item["title"]?.stringValue ?? item.stringValue
                else {
                    return nil
                }
                if let location = item["loc"]?.arrayValue {
                    let path = location.compactMap { $0.stringValue ?? ($0 == .null ? nil : "\($0)") }.joined(
                        separator: ".")
                    return path.isEmpty ? text : "\(path): \(text)"
                }
                return text
            }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        case .object(let object):
            return object["message"]?.stringValue ?? object["msg"]?.stringValue ?? object["detail"]?.stringValue
                ?? object["code"]?.stringValue
        default:
            return nil
        }
    }
}
