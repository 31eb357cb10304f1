import Foundation
import HTTPTypes
import Hummingbird
import Model
import NIOCore

/// Express-shaped responses: `res.json` with its headers, weak ETag and freshness check, plus the
/// security headers the real server adds to everything.
enum TickedifyHTTP {
    static let securityHeaders: [(HTTPField.Name, String)] = [
        (.init("X-Content-Type-Options")!, "nosniff"),
        (.init("X-Frame-Options")!, "DENY"),
        (.init("X-XSS-Protection")!, "1; mode=block"),
    ]

    static func baseHeaders() -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in securityHeaders { fields[name] = value }
        return fields
    }

    /// `res.status(status).json(value)`: compact JSON, `application/json; charset=utf-8`, a weak
    /// ETag, and 304 when a GET's `If-None-Match` matches.
    static func json(
        _ value: JSONValue, status: Int = 200, headers: [(HTTPField.Name, String)] = [], request: SimRequest? = nil
    ) -> Response {
        send(
            Array(value.serialized.utf8), contentType: "application/json; charset=utf-8", status: status,
            headers: headers, request: request)
    }

    static func send(
        _ body: [UInt8], contentType: String, status: Int, headers: [(HTTPField.Name, String)] = [],
        request: SimRequest? = nil
    ) -> Response {
        var fields = baseHeaders()
        for (name, value) in headers { fields.append(HTTPField(name: name, value: value)) }
        fields[.contentType] = contentType
        let tag = etag(body)
        fields[.eTag] = tag
        if let request, request.method == .get || request.method == .head,
            (200..<300).contains(status) || status == 304,
            let inm = request.headers[.ifNoneMatch], fresh(ifNoneMatch: inm, etag: tag)
        {
            fields[.contentType] = nil
            return Response(status: .init(code: 304, reasonPhrase: "Not Modified"), headers: fields, body: .init())
        }
        return Response(
            status: .init(code: status, reasonPhrase: reasonPhrase(status)), headers: fields,
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }

    /// `fresh`'s `If-None-Match` check (weak comparison, `*` matches everything).
    static func fresh(ifNoneMatch: String, etag: String) -> Bool {
        let value = ifNoneMatch.trimmingCharacters(in: .whitespaces)
        if value == "*" { return true }
        func strip(_ s: String) -> String { s.hasPrefix("W/") ? String(s.dropFirst(2)) : s }
        return value.split(separator: ",").contains { strip($0.trimmingCharacters(in: .whitespaces)) == strip(etag) }
    }

    /// Express's weak ETag shape `W/"<length hex>-<27 base64 chars>"`. The real hash is SHA-1; any
    /// stable digest does for a client.
    static func etag(_ body: [UInt8]) -> String {
        var rng = SeedRandom(seed: String(decoding: body, as: UTF8.self) + "|\(body.count)")
        let hash = String(Data(rng.bytes(20)).base64EncodedString().prefix(27))
        return "W/\"\(String(body.count, radix: 16))-\(hash)\""
    }

    /// `{"error": message}`.
    static func error(_ message: String, status: Int, request: SimRequest? = nil) -> Response {
        json(.object(["error": .string(message)]), status: status, request: request)
    }

    /// Express's `finalhandler` page for a path nothing handles outside `/api`.
    static func cannot(_ request: SimRequest) -> Response {
        let path = htmlEscape(request.rawPath)
        let html =
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n"
            + "<pre>Cannot \(request.method.rawValue) \(path)</pre>\n</body>\n</html>\n"
        var fields = baseHeaders()
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.init("Content-Security-Policy")!] = "default-src 'none'"
        return Response(
            status: .init(code: 404, reasonPhrase: "Not Found"), headers: fields,
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `res.redirect(location)`: 302, its body chosen by `res.format` from the `Accept` header:
    /// Express's text (`Found. Redirecting to /app`, `text/plain`) without one or when text is
    /// acceptable, an HTML paragraph for HTML, and otherwise (`Accept: application/json`, as daygate
    /// sends) an empty body without a `Content-Type` (recorded: 092, 128).
    static func redirect(
        _ location: String, headers: [(HTTPField.Name, String)] = [], request: SimRequest? = nil
    ) -> Response {
        var fields = baseHeaders()
        for (name, value) in headers { fields.append(HTTPField(name: name, value: value)) }
        fields[.location] = location
        fields[.vary] = "Accept"
        let body: String
        switch redirectFormat(accept: request?.headers[.accept]) {
        case .text:
            fields[.contentType] = "text/plain; charset=utf-8"
            body = "Found. Redirecting to \(location)"
        case .html:
            fields[.contentType] = "text/html; charset=utf-8"
            let escaped = htmlEscape(location)
            body = "<p>Found. Redirecting to <a href=\"\(escaped)\">\(escaped)</a></p>"
        case .none:
            body = ""
        }
        return Response(
            status: .init(code: 302, reasonPhrase: "Found"), headers: fields,
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }

    enum RedirectFormat {
        case text, html, none
    }

    /// `res.format({text, html, default})`: the first of text and HTML the `Accept` header allows.
    static func redirectFormat(accept: String?) -> RedirectFormat {
        guard let accept, !accept.trimmingCharacters(in: .whitespaces).isEmpty else { return .text }
        let ranges = accept.lowercased().split(separator: ",").compactMap { part -> String? in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let refused = pieces.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" }
            return refused ? nil : pieces.first
        }
        if ranges.contains(where: { ["text/plain", "text/*", "*/*"].contains($0) }) { return .text }
        if ranges.contains("text/html") { return .html }
        return .none
    }

    static func html(_ text: String, request: SimRequest) -> Response {
        send(Array(text.utf8), contentType: "text/html; charset=UTF-8", status: 200, request: request)
    }

    static func htmlEscape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}

// MARK: - Request bodies

/// What Express's `express.json()` and `express.urlencoded({extended: true})` leave in `req.body`.
enum TickedifyBody {
    case parsed(JSONValue)
    /// A body-parser SyntaxError; the global error handler turns it into a 500.
    case invalidJSON(message: String)

    static func parse(_ request: SimRequest) -> TickedifyBody {
        let mime =
            (request.headers[.contentType] ?? "").split(separator: ";", maxSplits: 1).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let bytes = Array(request.body.readableBytesView)
        switch mime {
        case "application/json":
            if bytes.isEmpty { return .parsed(.object([:])) }
            let text = String(decoding: bytes, as: UTF8.self)
            if let message = TickedifyJSONSyntax.bodyParserError(text) { return .invalidJSON(message: message) }
            return .parsed(JSONValue.parse(bytes) ?? .object([:]))
        case "application/x-www-form-urlencoded":
            return .parsed(urlencoded(String(decoding: bytes, as: UTF8.self)))
        default:
            return .parsed(.object([:]))
        }
    }

    /// `qs.parse` for flat keys: `+` is a space, repeated keys become arrays.
    static func urlencoded(_ text: String) -> JSONValue {
        var object = JSONObject(fields: [])
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let key: String
            let value: String
            if let eq = pair.firstIndex(of: "=") {
                key = percentDecode(pair[..<eq], plusAsSpace: true)
                value = percentDecode(pair[pair.index(after: eq)...], plusAsSpace: true)
            } else {
                key = percentDecode(pair, plusAsSpace: true)
                value = ""
            }
            guard !key.isEmpty else { continue }
            if let index = object.fields.firstIndex(where: { $0.0 == key }) {
                switch object.fields[index].1 {
                case .array(let items): object.fields[index].1 = .array(items + [.string(value)])
                case let existing: object.fields[index].1 = .array([existing, .string(value)])
                }
            } else {
                object.append(key, .string(value))
            }
        }
        return .object(object)
    }
}

/// The messages V8 11 (Node 20) puts in the SyntaxError of `JSON.parse`, and body-parser's strict
/// first-character check.
enum TickedifyJSONSyntax {
    private struct Failure: Error {
        var message: String
    }

    /// body-parser's error message for a JSON body, or nil when it parses.
    static func bodyParserError(_ text: String) -> String? {
        let units = Array(text.utf16)
        let whitespace: Set<UInt16> = [0x20, 0x09, 0x0a, 0x0d]
        guard let firstIndex = units.firstIndex(where: { !whitespace.contains($0) }) else {
            return "Unexpected end of JSON input"
        }
        let first = units[firstIndex]
        if first != tkU("{") && first != tkU("[") {
            // createStrictSyntaxError: parse the text before the first character plus '#', then put
            // the character back in place of the first '#' of the message.
            let partial = Array(units[..<firstIndex]) + [tkU("#")]
            let message = parseError(partial) ?? "Unexpected end of JSON input"
            let char = String(decoding: [units[firstIndex]], as: UTF16.self)
            if let range = message.range(of: "#") { return message.replacingCharacters(in: range, with: char) }
            return message
        }
        return parseError(units)
    }

    /// `JSON.parse`'s message for `units`, or nil when they are valid JSON.
    static func parseError(_ units: [UInt16]) -> String? {
        var parser = Parser(units: units)
        do {
            try parser.value()
            parser.skipWhitespace()
            if parser.i < units.count {
                throw Failure(message: "Unexpected non-whitespace character after JSON at position \(parser.i)")
            }
            return nil
        } catch let failure as Failure {
            return failure.message
        } catch {
            return "Unexpected end of JSON input"
        }
    }

    private struct Parser {
        let units: [UInt16]
        var i = 0

        init(units: [UInt16]) { self.units = units }

        var atEnd: Bool { i >= units.count }
        var c: UInt16 { units[i] }

        mutating func skipWhitespace() {
            while !atEnd, c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d { i += 1 }
        }

        func fail(_ message: String) -> Failure { Failure(message: "\(message) in JSON at position \(i)") }

        func unexpected() -> Failure {
            if atEnd { return Failure(message: "Unexpected end of JSON input") }
            let token = String(decoding: [c], as: UTF16.self)
            let source = String(decoding: units, as: UTF16.self)
            let maxContext = 10
            if units.count < maxContext * 2 + 1 {
                return Failure(message: "Unexpected token '\(token)', \"\(source)\" is not valid JSON")
            }
            let start = max(0, i - maxContext)
            let end = min(units.count, i + maxContext)
            let context = String(decoding: units[start..<end], as: UTF16.self)
            let prefix = start > 0 ? "...\"" : "\""
            let suffix = end < units.count ? "\"..." : "\""
            return Failure(message: "Unexpected token '\(token)', \(prefix)\(context)\(suffix) is not valid JSON")
        }

        mutating func value() throws {
            skipWhitespace()
            guard !atEnd else { throw unexpected() }
            switch c {
            case tkU("{"): try object()
            case tkU("["): try array()
            case tkU("\""): try string()
            case tkU("-"), tkU("0")...tkU("9"): try number()
            case tkU("t"): try literal("true")
            case tkU("f"): try literal("false")
            case tkU("n"): try literal("null")
            default: throw unexpected()
            }
        }

        mutating func object() throws {
            i += 1
            skipWhitespace()
            if !atEnd, c == tkU("}") {
                i += 1
                return
            }
            var afterComma = false
            while true {
                guard !atEnd, c == tkU("\"") else {
                    throw fail(afterComma ? "Expected double-quoted property name" : "Expected property name or '}'")
                }
                try string()
                skipWhitespace()
                guard !atEnd, c == tkU(":") else { throw fail("Expected ':' after property name") }
                i += 1
                try value()
                skipWhitespace()
                if !atEnd, c == tkU(",") {
                    i += 1
                    skipWhitespace()
                    afterComma = true
                    continue
                }
                if !atEnd, c == tkU("}") {
                    i += 1
                    return
                }
                throw fail("Expected ',' or '}' after property value")
            }
        }

        mutating func array() throws {
            i += 1
            skipWhitespace()
            if !atEnd, c == tkU("]") {
                i += 1
                return
            }
            while true {
                try value()
                skipWhitespace()
                if !atEnd, c == tkU(",") {
                    i += 1
                    continue
                }
                if !atEnd, c == tkU("]") {
                    i += 1
                    return
                }
                throw fail("Expected ',' or ']' after array element")
            }
        }

        mutating func string() throws {
            i += 1
            while true {
                guard !atEnd else { throw fail("Unterminated string") }
                let ch = c
                if ch == tkU("\"") {
                    i += 1
                    return
                }
                if ch < 0x20 { throw fail("Bad control character in string literal") }
                if ch == tkU("\\") {
                    i += 1
                    guard !atEnd else { throw fail("Unterminated string") }
                    switch c {
                    case tkU("\""), tkU("\\"), tkU("/"), tkU("b"), tkU("f"),
                        tkU("n"), tkU("r"), tkU("t"):
                        i += 1
                    case tkU("u"):
                        i += 1
                        for _ in 0..<4 {
                            guard !atEnd else { throw fail("Bad Unicode escape") }
                            let h = c
                            let isHex = (h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66)
                            guard isHex else { throw fail("Bad Unicode escape") }
                            i += 1
                        }
                    default:
                        throw fail("Bad escaped character")
                    }
                    continue
                }
                i += 1
            }
        }

        mutating func digits() -> Int {
            var n = 0
            while !atEnd, c >= tkU("0"), c <= tkU("9") {
                i += 1
                n += 1
            }
            return n
        }

        mutating func number() throws {
            if c == tkU("-") {
                i += 1
                guard !atEnd, c >= tkU("0"), c <= tkU("9") else { throw fail("No number after minus sign") }
            }
            if c == tkU("0") {
                i += 1
            } else {
                _ = digits()
            }
            if !atEnd, c == tkU(".") {
                i += 1
                guard digits() > 0 else { throw fail("Unterminated fractional number") }
            }
            if !atEnd, c == tkU("e") || c == tkU("E") {
                i += 1
                if !atEnd, c == tkU("+") || c == tkU("-") { i += 1 }
                guard digits() > 0 else { throw fail("Exponent part is missing a number") }
            }
        }

        mutating func literal(_ word: String) throws {
            for expected in word.utf16 {
                guard !atEnd, c == expected else { throw unexpected() }
                i += 1
            }
        }
    }
}

/// The UTF-16 code unit of an ASCII scalar.
private func tkU(_ s: Unicode.Scalar) -> UInt16 { UInt16(s.value) }
