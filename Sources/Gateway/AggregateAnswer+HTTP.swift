import Aggregation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// How an aggregated answer goes out over HTTP: a strong `ETag`, 304 on a matching
/// `If-None-Match`, `Cache-Control` (`max-age` only when the answer is complete and fresh),
/// `Age`, `Cache-Status` (RFC 9211) and `Server-Timing` with each section's time.
extension AggregateAnswer {
    /// The answer for `request`: 304 without a body when the client's copy is current.
    func response(for request: Request) -> Response {
        rendered.response(for: request)
    }

    /// Headers and body, built once.
    var rendered: RenderedAnswer {
        let tag = etag
        var headers = HTTPFields()
        headers.reserveCapacity(7)
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.eTag] = tag
        // A 404 (`not_found`: the one thing asked for does not exist) is an error answer: not stored.
        headers[.cacheControl] =
            status == 404 ? "no-store" : maxAge.map { "private, max-age=\($0)" } ?? "private, no-cache"
        headers[.age] = String(ageSeconds)
        headers[.cacheStatus] = cacheStatus
        headers[.serverTiming] = serverTiming
        var rendered = RenderedAnswer(
            status: .init(code: status), headers: headers, body: ByteBuffer(bytes: body), etag: tag,
            reusableUntil: reusableUntil, generation: generation, profile: profile, reuses: reuses
        )
        if let reaged {
            rendered.reaged = { at in reaged(at)?.rendered }
        }
        return rendered
    }

    /// A strong validator over `validatorBody`: equal data (whatever its age) gives an equal
    /// tag; any change in a section's data, status or error gives a new one.
    var etag: String {
        let digest = SHA256.hash(data: validatorBody)
        // base64url of the first 20 bytes (27 characters), without Foundation's string replacing.
        let text = String(
            decoding: Data(digest).base64EncodedData().prefix(27).map { byte in
                byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte
            }, as: UTF8.self)
        return "\"\(text)\""
    }

    /// `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2): `W/` is ignored; `*`
    /// matches any current representation.
    static func matches(_ condition: String, etag: String) -> Bool {
        HTTPFieldList.members(condition).contains { candidate in
            candidate == "*" || (candidate.hasPrefix("W/") ? candidate.dropFirst(2) : candidate) == etag
        }
    }

    /// RFC 9211: one member for the gateway's cache. `hit` when every section came from the
    /// cache; otherwise `fwd=` the strongest reason a backend was asked (`miss` when a section
    /// had nothing usable, `request` for a client's `no-cache`, `stale` when stale data was
    /// served because the backend failed), `stored` when a fetched answer was cached, `ttl` =
    /// the smallest remaining freshness (negative when stale), `collapsed` when the request
    /// joined another's fetch, and `detail` listing every section.
    var cacheStatus: String {
        var forwarded: Set<String> = []
        var stored = false
        var parts: [String] = []
        for (name, lookup) in lookups.sorted(by: { $0.key < $1.key }) {
            switch lookup.outcome {
            case .fresh, .staleRevalidating: break
            case .miss:
                forwarded.insert("miss")
                stored = true
            case .refreshed:
                forwarded.insert("request")
                stored = true
            case .staleAfterError, .staleAfterTimeout: forwarded.insert("stale")
            case .failed, .timedOut: forwarded.insert("miss")
            }
            parts.append("\(Self.token(name))=\(lookup.word)")
        }
        var member = ["daygate"]
        if let reason = ["miss", "request", "stale"].first(where: forwarded.contains) {
            member.append("fwd=\(reason)")
            if stored { member.append("stored") }
        } else {
            member.append("hit")
        }
        if let ttl = lookups.values.compactMap(\.ttl).min() { member.append("ttl=\(ttl)") }
        if lookups.values.contains(where: \.collapsed) { member.append("collapsed") }
        member.append("detail=\"\(parts.joined(separator: " "))\"")
        return member.joined(separator: "; ")
    }

    /// `Server-Timing`: each section's time with its backend and cache outcome.
    var serverTiming: String {
        lookups.sorted(by: { $0.key < $1.key }).map { name, lookup in
            "\(Self.token(name));dur=\(Self.oneDecimal(lookup.durationMs));desc=\"\(lookup.backend) \(lookup.word)\""
        }.joined(separator: ", ")
    }

    /// A duration in milliseconds with one decimal, as `%.1f` writes it (without Foundation's
    /// `String(format:)`, which cost more than the rest of the header): rounded to the nearest
    /// tenth, a half away from zero. `%.1f` rounds the exact binary value, so a value
    /// written in decimal as an exact half (0.25, 0.35) may come out a tenth apart.
    static func oneDecimal(_ milliseconds: Double) -> String {
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return String(format: "%.1f", milliseconds) }
        let tenths = Int((abs(milliseconds) * 10).rounded())
        let sign = milliseconds.sign == .minus ? "-" : ""
        return "\(sign)\(tenths / 10).\(tenths % 10)"
    }

    /// A section name as an HTTP token (route files allow little else, but be safe).
    static func token(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }
}

extension SectionLookup {
    /// The section's outcome in `Cache-Status` detail and `Server-Timing`: hit, hit-stale
    /// (served while revalidating), miss, refreshed (`no-cache`), stale (backend failed or
    /// too slow), none (no data).
    var word: String {
        switch outcome {
        case .fresh: "hit"
        case .staleRevalidating: "hit-stale"
        case .miss: "miss"
        case .refreshed: "refreshed"
        case .staleAfterError, .staleAfterTimeout: "stale"
        case .failed, .timedOut: "none"
        }
    }
}

extension HTTPField.Name {
    static let cacheStatus = HTTPField.Name("Cache-Status")!
    static let serverTiming = HTTPField.Name("Server-Timing")!
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
