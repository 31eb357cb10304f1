import Foundation

/// Keeps secrets out of what upstream error bodies say before the gateway repeats them in an
/// answer, a log line or /v1/sources. Two layers: the secrets the config holds (passwords,
/// tokens, API keys, client keys — and their JSON-escaped forms) are replaced wherever they
/// appear in a non-2xx body; and anything shaped like a credential (`Bearer …`, a JWT,
/// `password=…`, `token: …`, `api_key=…`, a cookie) is replaced in every message shown.
public struct SecretRedactor: Sendable {
    public static let mask = "[redacted]"
    private let secrets: [String]

    public init(secrets: Set<String> = []) {
        var forms = Set<String>()
        for secret in secrets where secret.count >= 4 {
            forms.insert(secret)
            for formatting in [JSONEncoder.OutputFormatting(), .withoutEscapingSlashes] {
                let encoder = JSONEncoder()
                encoder.outputFormatting = formatting
                if let data = try? encoder.encode(secret), let escaped = String(data: data, encoding: .utf8) {
                    forms.insert(String(escaped.dropFirst().dropLast()))
                }
            }
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
                forms.insert(encoded)
            }
        }
        // Longest first, so a secret containing another is replaced whole.
        self.secrets = forms.sorted { $0.count > $1.count }
    }

    /// `body` with every configured secret replaced.
    public func redact(_ body: Data) -> Data {
        guard !secrets.isEmpty, var text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: Self.mask)
            changed = true
        }
        return changed ? Data(text.utf8) : body
    }

    private static let patterns: [(NSRegularExpression, String)] = [
        (#"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}"#, "$1 \(mask)"),
        (#"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"#, mask),
        (
            #"(?i)\b(password|passwd|pwd|wachtwoord|secret|client_secret|token|access_token|refresh_token|api[_-]?key|apikey|cookie|set-cookie|session|sid|authorization)(["']?\s*[:=]\s*["']?)[^\s"',;&}]+"#,
            "$1$2\(mask)"
        ),
        (#"(?i)\b([a-z0-9_.-]*(?:sid|session))=[^\s;,"']+"#, "$1=\(mask)"),
    ].map { (try! NSRegularExpression(pattern: $0.0), $0.1) }

    /// `text` with anything shaped like a credential replaced.
    public static func scrubPatterns(_ text: String) -> String {
        var result = text
        for (pattern, template) in patterns {
            result = pattern.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: template
            )
        }
        return result
    }
}
