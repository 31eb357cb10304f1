import Foundation

/// Keeps secrets out of what upstream error bodies say before the gateway repeats them in an
/// answer, a log line or /v1/sources. Two layers:
///
/// - `redact(_:)`, on every non-2xx body: the secrets the config holds (passwords, tokens,
///   API keys, client keys, secret calendar addresses) are replaced wherever they appear — as
///   they are, JSON-escaped (`\/`, `\u0061`), percent-encoded (in either case of hex, UTF-8
///   bytes of other scripts too), as HTML character references, or inside base64 (an echoed
///   `Basic` credential is the base64 of `user:password`: any base64 run whose decoding holds a
///   secret goes whole). A secret address is also found in its parts: its path, its query,
///   each query value, its user and password, and each path segment that looks like a key.
/// - `scrubPatterns(_:)`, on every message shown: anything shaped like a credential, known or
///   not — an `Authorization`, `Cookie` or `Set-Cookie` header's whole value, `Bearer …` and
///   `Basic …`, a JWT, `password=…`, `token: …`, `api_key=…`, a session cookie, the user and
///   password of a URL.
public struct SecretRedactor: Sendable {
    public static let mask = "[redacted]"
    /// The forms searched for (as Unicode scalars), longest first so that a secret holding
    /// another is replaced whole.
    private let needles: [[Unicode.Scalar]]
    /// Scalars a match can start with: the needles' first scalars and the escape openers.
    private let starts: Set<Unicode.Scalar>

    /// Shortest secret (or part of a secret address) searched for: shorter ones would mask
    /// ordinary words.
    public static let minimumLength = 4

    public init(secrets: Set<String> = []) {
        var forms = Set<String>()
        for secret in secrets where secret.count >= Self.minimumLength {
            forms.formUnion(Self.forms(of: secret))
        }
        needles = forms.filter { $0.count >= Self.minimumLength }.map { Array($0.unicodeScalars) }
            .sorted { $0.count > $1.count }
        var starts: Set<Unicode.Scalar> = ["%", "\\", "&"]
        for needle in needles {
            starts.insert(needle[0])
            if needle[0] == " " { starts.insert("+") }
        }
        self.starts = starts
    }

    /// What to search for of one secret: itself, percent-decoded, and for a URL its parts.
    static func forms(of secret: String) -> Set<String> {
        var forms: Set<String> = [secret]
        if let decoded = secret.removingPercentEncoding { forms.insert(decoded) }
        guard secret.contains("://"), let url = URLComponents(string: secret), url.host != nil else { return forms }
        var parts: [String] = []
        let path = url.percentEncodedPath
        if path != "/" {
            parts.append(path)
            if let query = url.percentEncodedQuery { parts.append(path + "?" + query) }
            for segment in path.split(separator: "/").map(String.init) where Self.looksLikeKey(segment) {
                parts.append(segment)
            }
        }
        if let query = url.percentEncodedQuery {
            parts.append(query)
            for item in query.split(separator: "&") {
                parts.append(String(item))
                if let equals = item.firstIndex(of: "="), case let value = String(item[item.index(after: equals)...]),
                    Self.looksLikeKey(value.removingPercentEncoding ?? value)
                {
                    parts.append(value)
                }
            }
        }
        if let password = url.percentEncodedPassword {
            parts.append(password)
            parts.append((url.percentEncodedUser ?? "") + ":" + password)
        }
        if let fragment = url.percentEncodedFragment { parts.append(fragment) }
        for part in parts where part.count >= minimumLength {
            forms.insert(part)
            if let decoded = part.removingPercentEncoding { forms.insert(decoded) }
        }
        return forms
    }

    /// A path segment or query value of a secret address that may be its key: long, or
    /// letters mixed with digits (`private-9f3c…`, `abc123`); not a plain word such as
    /// `calendar`, `basic.ics` or `true`, which would be masked in every error body.
    static func looksLikeKey(_ segment: String) -> Bool {
        guard segment.count >= 6 else { return false }
        if segment.count >= 16 { return true }
        return segment.contains(where: \.isNumber) && segment.contains(where: \.isLetter)
    }

    /// `body` with every configured secret replaced. A body that is not UTF-8 is read as UTF-8
    /// with replacement characters when it has to change. A `truncated` body (cut by the reader)
    /// also loses a tail that could be the start of a secret.
    public func redact(_ body: Data, truncated: Bool = false) -> Data {
        guard !needles.isEmpty, !body.isEmpty else { return body }
        let text = String(decoding: body, as: UTF8.self)
        let redacted = redact(secretsIn: text, truncated: truncated)
        return redacted == text ? body : Data(redacted.utf8)
    }

    /// `text` with every configured secret replaced, in any of the forms `redact(_:)` knows.
    /// With `truncated`, a tail that reads as the start of a secret is replaced too. The cost
    /// is linear in the text's length (times the number of forms searched for).
    public func redact(secretsIn text: String, truncated: Bool = false) -> String {
        guard !needles.isEmpty, !text.isEmpty else { return text }
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var changed = false
        var position = 0
        while position < scalars.count {
            if starts.contains(scalars[position]),
                let end = longestMatch(in: scalars, at: position, partialAtEnd: truncated)
            {
                output.append(contentsOf: Self.mask.unicodeScalars)
                position = end
                changed = true
            } else {
                output.append(scalars[position])
                position += 1
            }
        }
        let literal = changed ? String(output) : text
        return redactBase64(in: literal)
    }

    /// The end of the longest needle read at `start`, escapes decoded on the way.
    private func longestMatch(in text: [Unicode.Scalar], at start: Int, partialAtEnd: Bool = false) -> Int? {
        var best: Int?
        for needle in needles {
            if let end = Self.match(needle, in: text, at: start, partialAtEnd: partialAtEnd), end > (best ?? start) {
                best = end
            }
        }
        return best
    }

    /// Where `needle` ends when it is read in `text` from `start`, each of its scalars as it is
    /// or escaped; nil when it is not there. With `partialAtEnd`, text that ends part-way
    /// through the needle (a body cut short) counts as a match up to its end.
    static func match(
        _ needle: [Unicode.Scalar], in text: [Unicode.Scalar], at start: Int, partialAtEnd: Bool = false
    ) -> Int? {
        var frontier: [Int] = [start]
        for wanted in needle {
            if partialAtEnd, frontier.contains(text.count) { return text.count }
            var next: [Int] = []
            for position in frontier where position < text.count {
                EscapeReading.each(in: text, at: position) { scalar, length in
                    if scalar == wanted, !next.contains(position + length) { next.append(position + length) }
                }
            }
            if next.isEmpty { return nil }
            frontier = next
        }
        return frontier.max()
    }

    /// Replaces every base64 run (standard or URL-safe alphabet, 8 characters or more) whose
    /// decoding, from any of its first four characters, holds a configured secret.
    private func redactBase64(in text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var changed = false
        var position = 0
        while position < scalars.count {
            guard Base64Run.isAlphabet(scalars[position]) else {
                output.append(scalars[position])
                position += 1
                continue
            }
            var end = position
            while end < scalars.count, Base64Run.isAlphabet(scalars[end]) { end += 1 }
            while end < scalars.count, scalars[end] == "=" { end += 1 }
            let run = scalars[position..<end]
            if run.count >= 8, holdsSecret(Base64Run.decodings(of: run)) {
                output.append(contentsOf: Self.mask.unicodeScalars)
                changed = true
            } else {
                output.append(contentsOf: run)
            }
            position = end
        }
        return changed ? String(output) : text
    }

    private func holdsSecret(_ decodings: [String]) -> Bool {
        decodings.contains { decoded in
            let scalars = Array(decoded.unicodeScalars)
            guard scalars.count >= Self.minimumLength else { return false }
            for start in scalars.indices where starts.contains(scalars[start]) {
                for needle in needles where Self.match(needle, in: scalars, at: start) != nil { return true }
            }
            return false
        }
    }

    private static let patterns: [(NSRegularExpression, String)] = [
        // A header's whole value: quoted (also inside a JSON string), else to the end of the line.
        (
            #"(?i)\b(proxy-authorization|authorization|set-cookie|cookie)(\\?["']?\s*[:=]\s*)(?:\\"(?:[^\\\r\n]|\\[^"\r\n])*(?:\\"|$)|"(?:[^"\\\r\n]|\\.)*(?:"|$)|'[^'\r\n]*(?:'|$)|[^\r\n]+)"#,
            "$1$2\(mask)"
        ),
        (#"(?i)\b(bearer|basic)(\s+|%20|\+)[A-Za-z0-9._~+/=-]{4,}"#, "$1$2\(mask)"),
        (#"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"#, mask),
        (
            #"(?i)\b(password|passwd|pwd|wachtwoord|secret|client_secret|token|access_token|refresh_token|api[_-]?key|apikey|cookie|set-cookie|session|sid|authorization)(["']?\s*[:=]\s*["']?)[^\s"',;&}]+"#,
            "$1$2\(mask)"
        ),
        // A cookie named like a session (`PHPSESSID=…`, `connect.sid=…`): the name is read from
        // the start of its run only and never given back (possessive), so a long run of
        // name characters costs one pass, not one per start.
        (#"(?i)(?<![a-z0-9_.-])([a-z0-9_.-]*+)(?<=sid|session)=[^\s;,"']++"#, "$1=\(mask)"),
        // The user and password of a URL (`https://anna:pw@host/…`): found from its `://`.
        (#"://[^\s/?#@"'<>]++@"#, "://\(mask)@"),
    ].map { (try! NSRegularExpression(pattern: $0.0), $0.1) }

    /// How much of a text `scrubPatterns` reads: it is for messages shown on one line, cut to a
    /// few hundred characters after; reading more would only cost time.
    public static let scanLimit = 4_096

    /// `text` with anything shaped like a credential replaced. Only its first `scanLimit`
    /// characters are read and kept; every pattern runs in time linear in that.
    public static func scrubPatterns(_ text: String) -> String {
        var result = text.unicodeScalars.count > scanLimit ? String(text.unicodeScalars.prefix(scanLimit)) : text
        for (pattern, template) in patterns {
            result = pattern.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: template
            )
        }
        return result
    }
}
